import middy from '@middy/core';
import { afterEach, describe, expect, it } from 'vitest';
import { badRequest } from '#lib/errors.ts';
import { endpoint } from '#lib/http/endpoint.ts';
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
    }).use([cors(), errorResponse(), proxyResult()]);
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
    const handler = middy(async () => ({ ok: 1 })).use([cors(), errorResponse(), proxyResult()]);
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

  it('the whole endpoint stack adds them to an auth refusal (decided before any query)', async () => {
    const handler = endpoint({ auth: 'admin' }, async () => ({ reached: true }));
    const res = await handler(fakeEvent({ headers: { Origin: 'https://elsewhere.example' } }), fakeContext());
    expect(res).toEqual({
      statusCode: 401,
      headers: {
        'Access-Control-Expose-Headers': 'ETag, Location',
        'Access-Control-Allow-Origin': '*',
        'Content-Type': json,
        // A 4xx differs for the MMGIS client (X-Requested-With: a 200 failure; docs/contract.md).
        Vary: 'X-Requested-With',
      },
      multiValueHeaders: undefined,
      body: JSON.stringify({
        status: 'failure',
        message: 'Authentication required: log in or send Authorization: Bearer <token>.',
      }),
    });
  });
});
