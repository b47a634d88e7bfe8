import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import { describe, expect, it } from 'vitest';
import { bodyLimit } from '#lib/http/middleware/bodyLimit.ts';
import { bodyParser } from '#lib/http/middleware/bodyParser.ts';
import { errorResponse } from '#lib/http/middleware/errorResponse.ts';
import { proxyResult } from '#lib/http/middleware/proxyResult.ts';
import type { EndpointContext, EndpointMiddleware } from '#lib/http/middleware/types.ts';
import { fakeContext, fakeEvent } from './fakeRequest.ts';

const json = { 'Content-Type': 'application/json; charset=utf-8' };

/** Echoes what the body middlewares left: the parsed body, the raw text and the header names. */
function echo(...middlewares: EndpointMiddleware[]) {
  return middy(async (event: { body: unknown; headers: object }, context: EndpointContext) => ({
    body: event.body,
    rawBody: context.rawBody ?? null,
    headers: Object.keys(event.headers ?? {}),
  })).use([errorResponse(), proxyResult(), ...middlewares] as never[]);
}

describe('bodyLimit', () => {
  it('refuses a body over the limit with 413 before parsing it', async () => {
    const res = await echo(bodyLimit({ limit: 10 }), bodyParser())(
      fakeEvent({ httpMethod: 'POST', body: '{"a":"0123456789"}' }),
      fakeContext(),
    );
    expect(res).toEqual({
      statusCode: 413,
      headers: json,
      multiValueHeaders: undefined,
      body: JSON.stringify({
        status: 'failure',
        message:
          'The request body is larger than 10 bytes (the API Gateway/Lambda limit). Upload large GeoJSON ' +
          'through POST /api/geodatasets/upload (a presigned S3 URL) instead.',
      }),
    });
  });
});

describe('bodyParser', () => {
  it.each([
    ['{"a":[1,2]}', { a: [1, 2] }],
    ['', null],
    ['   ', null],
  ])('json %j', async (body, parsed) => {
    const res = await echo(bodyParser())(fakeEvent({ httpMethod: 'POST', body }), fakeContext());
    expect(res).toEqual({
      statusCode: 200,
      headers: json,
      multiValueHeaders: undefined,
      body: JSON.stringify({ body: parsed, rawBody: null, headers: [] }),
    });
  });

  it('answers malformed JSON with 400 quoting the reason', async () => {
    const res = (await echo(bodyParser())(
      fakeEvent({ httpMethod: 'POST', body: '{"a":' }),
      fakeContext(),
    )) as unknown as {
      statusCode: number;
      body: string;
    };
    expect(res.statusCode).toBe(400);
    expect(JSON.parse(res.body)).toEqual({
      status: 'failure',
      message: expect.stringMatching(/^The request body is not valid JSON: .+\.$/),
    });
  });

  it('raw: hands over the text (base64 decoded) and leaves the body alone', async () => {
    const text = '{"type":"FeatureCollection"';
    const res = await echo(bodyParser({ kind: 'raw' }))(
      fakeEvent({ httpMethod: 'POST', body: Buffer.from(text).toString('base64'), isBase64Encoded: true }),
      fakeContext(),
    );
    expect(res).toEqual({
      statusCode: 200,
      headers: json,
      multiValueHeaders: undefined,
      body: JSON.stringify({ body: Buffer.from(text).toString('base64'), rawBody: text, headers: [] }),
    });
  });
});

describe('header normalization', () => {
  it('lower-cases header names before the body parser reads Content-Type', async () => {
    const res = await echo(httpHeaderNormalizer() as EndpointMiddleware, bodyParser())(
      fakeEvent({ httpMethod: 'POST', headers: { 'Content-Type': 'text/plain', 'X-A': '1' }, body: '[1]' }),
      fakeContext(),
    );
    expect(res).toEqual({
      statusCode: 200,
      headers: json,
      multiValueHeaders: undefined,
      body: JSON.stringify({ body: [1], rawBody: null, headers: ['content-type', 'x-a'] }),
    });
  });
});

describe('json-or-form', () => {
  it('parses a jQuery-style form body, and JSON otherwise', async () => {
    const form = await echo(
      httpHeaderNormalizer() as EndpointMiddleware,
      bodyParser({ kind: 'json-or-form' }),
    )(
      fakeEvent({
        httpMethod: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'ids%5B%5D=1&ids%5B%5D=2&a%5Bb%5D=c',
      }),
      fakeContext(),
    );
    expect(form).toEqual({
      statusCode: 200,
      headers: json,
      multiValueHeaders: undefined,
      body: JSON.stringify({
        body: { ids: ['1', '2'], a: { b: 'c' } },
        rawBody: null,
        headers: ['content-type'],
      }),
    });
    const asJson = await echo(bodyParser({ kind: 'json-or-form' }))(
      fakeEvent({ httpMethod: 'POST', body: '{"ids":[1]}' }),
      fakeContext(),
    );
    expect(asJson).toEqual({
      statusCode: 200,
      headers: json,
      multiValueHeaders: undefined,
      body: JSON.stringify({ body: { ids: [1] }, rawBody: null, headers: [] }),
    });
  });
});
