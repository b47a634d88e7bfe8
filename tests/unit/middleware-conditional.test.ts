import middy from '@middy/core';
import { describe, expect, it } from 'vitest';
import { conditionalRequest } from '#lib/http/middleware/conditionalRequest.ts';
import { proxyResult } from '#lib/http/middleware/proxyResult.ts';
import { respond } from '#lib/http/response.ts';
import { fakeContext, fakeEvent } from './fakeRequest.ts';

const tagged = middy(async () =>
  respond(200, { v: 1 }, { headers: { ETag: '"abc"', 'Cache-Control': 'no-cache' } }),
).use([conditionalRequest(), proxyResult()]);

describe('conditionalRequest', () => {
  it.each(['"abc"', 'W/"abc"', '"x", "abc"', '*'])(
    'If-None-Match %s → 304 with the validators',
    async (inm) => {
      expect(await tagged(fakeEvent({ headers: { 'if-none-match': inm } }), fakeContext())).toEqual({
        statusCode: 304,
        headers: { ETag: '"abc"', 'Cache-Control': 'no-cache' },
        multiValueHeaders: undefined,
        body: '',
      });
    },
  );

  it.each([undefined, '"abcd"', 'abc'])('If-None-Match %s → the 200 unchanged', async (inm) => {
    expect(await tagged(fakeEvent({ headers: inm ? { 'If-None-Match': inm } : {} }), fakeContext())).toEqual({
      statusCode: 200,
      headers: {
        ETag: '"abc"',
        'Cache-Control': 'no-cache',
        'Content-Type': 'application/json; charset=utf-8',
      },
      multiValueHeaders: undefined,
      body: '{"v":1}',
    });
  });
});
