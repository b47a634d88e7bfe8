import middy from '@middy/core';
import { afterEach, describe, expect, it } from 'vitest';
import { badRequest } from '#lib/errors.ts';
import { cors } from '#lib/http/middleware/cors.ts';
import { errorResponse } from '#lib/http/middleware/errorResponse.ts';
import { proxyResult } from '#lib/http/middleware/proxyResult.ts';
import { fakeContext, fakeEvent } from './fakeRequest.ts';

const json = 'application/json; charset=utf-8';

describe('cors', () => {
  afterEach(() => {
    delete process.env.CORS_ORIGINS;
  });

  it('allows every origin without credentials by default, on errors too', async () => {
    const handler = middy(async () => {
      throw badRequest('No.');
    }).use([errorResponse(), cors(), proxyResult()]);
    const res = await handler(fakeEvent({ headers: { Origin: 'https://elsewhere.example' } }), fakeContext());
    expect(res).toEqual({
      statusCode: 400,
      headers: {
        'Access-Control-Expose-Headers': 'ETag, Location',
        'Access-Control-Allow-Origin': '*',
        'Content-Type': json,
      },
      multiValueHeaders: undefined,
      body: '{"status":"failure","message":"No."}',
    });
  });

  it('echoes an allowed origin with credentials and Vary', async () => {
    process.env.CORS_ORIGINS = 'https://a.example, https://app.example';
    const handler = middy(async () => ({ ok: 1 })).use([errorResponse(), cors(), proxyResult()]);
    const res = await handler(fakeEvent({ headers: { origin: 'https://app.example' } }), fakeContext());
    expect(res).toEqual({
      statusCode: 200,
      headers: {
        'Access-Control-Expose-Headers': 'ETag, Location',
        'Access-Control-Allow-Origin': 'https://app.example',
        'Access-Control-Allow-Credentials': 'true',
        Vary: 'Origin',
        'Content-Type': json,
      },
      multiValueHeaders: undefined,
      body: '{"ok":1}',
    });
  });
});
