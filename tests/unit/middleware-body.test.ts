import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import { describe, expect, it } from 'vitest';
import { bodyLimit } from '#lib/http/middleware/bodyLimit.ts';
import { bodyParser } from '#lib/http/middleware/bodyParser.ts';
import { errorResponse } from '#lib/http/middleware/errorResponse.ts';
import { proxyResult } from '#lib/http/middleware/proxyResult.ts';
import type { EndpointContext, EndpointMiddleware } from '#lib/http/middleware/types.ts';
import { failureResult, fakeContext, fakeEvent } from './fakeRequest.ts';

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
    const res = await echo(bodyParser())(
      fakeEvent({ httpMethod: 'POST', headers: { 'content-type': 'application/json' }, body }),
      fakeContext(),
    );
    expect(res).toEqual({
      statusCode: 200,
      headers: json,
      multiValueHeaders: undefined,
      body: JSON.stringify({ body: parsed, rawBody: null, headers: ['content-type'] }),
    });
  });

  it('answers malformed JSON with 400 quoting the reason', async () => {
    const res = (await echo(bodyParser())(
      fakeEvent({ httpMethod: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":' }),
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
      fakeEvent({
        httpMethod: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-A': '1' },
        body: '[1]',
      }),
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
      fakeEvent({
        httpMethod: 'POST',
        headers: { 'content-type': 'application/vnd.api+json' },
        body: '{"ids":[1]}',
      }),
      fakeContext(),
    );
    expect(asJson).toEqual({
      statusCode: 200,
      headers: json,
      multiValueHeaders: undefined,
      body: JSON.stringify({ body: { ids: [1] }, rawBody: null, headers: ['content-type'] }),
    });
  });
});

describe('content types (docs/contract.md, section 1)', () => {
  it.each([
    ['text/plain', 'text/plain'],
    ['text/plain;charset=UTF-8', 'text/plain;charset=UTF-8'],
    ['multipart/form-data; boundary=x', 'multipart/form-data; boundary=x'],
    [undefined, '(none)'],
  ])('a body sent as %s is a 415, even when it holds JSON', async (type, named) => {
    const headers: Record<string, string> = type ? { 'content-type': type } : {};
    const res = await echo(bodyParser())(
      fakeEvent({ httpMethod: 'POST', headers, body: '{"username":"a","password":"b"}' }),
      fakeContext(),
    );
    expect(res).toEqual(
      failureResult(
        415,
        `Unsupported Content-Type ${JSON.stringify(named)}: send JSON (application/json) or a form ` +
          '(application/x-www-form-urlencoded).',
      ),
    );
  });

  it('an empty body of any type is no body; an empty form is a form without fields', async () => {
    for (const [type, parsed] of [
      ['text/plain', null],
      ['application/x-www-form-urlencoded', {}],
    ] as const) {
      const res = await echo(bodyParser())(
        fakeEvent({ httpMethod: 'POST', headers: { 'content-type': type }, body: '' }),
        fakeContext(),
      );
      expect(JSON.parse((res as unknown as { body: string }).body).body).toEqual(parsed);
    }
  });
});

describe('form limits (lib/http/formBody.ts)', () => {
  const post = (body: string) =>
    echo(bodyParser())(
      fakeEvent({
        httpMethod: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8' },
        body,
      }),
      fakeContext(),
    ) as unknown as Promise<{ statusCode: number; body: string }>;

  it('takes 1000 fields and refuses 1001 with a 400, at once (40,000 took 20 s before the cap)', async () => {
    const fields = (n: number) => Array.from({ length: n }, (_, i) => `ids%5B%5D=${i}`).join('&');
    const ok = await post(fields(1000));
    expect(ok.statusCode).toBe(200);
    expect(JSON.parse(ok.body).body.ids).toHaveLength(1000);
    // qs stops at the 1,001st field (its parameterLimit with throwOnLimitExceeded): the refusal's message
    // is qs's own. How long it takes is a figure, not an assertion (a wall-clock bound failed on a loaded
    // machine).
    const refused = await post(fields(40_000));
    expect(refused).toEqual(
      failureResult(
        400,
        'The form body could not be parsed: Parameter limit exceeded. Only 1000 parameters allowed.',
      ),
    );
  });

  it('refuses keys nested deeper than 20 and a form over MAX_FORM_BYTES with a 400', async () => {
    const deep = await post(`a${'[b]'.repeat(21)}=1`);
    expect(deep.statusCode).toBe(400);
    expect(JSON.parse(deep.body).message).toMatch(/^The form body could not be parsed: .*depth/);
    process.env.MAX_FORM_BYTES = '100';
    try {
      expect(await post(`a=${'x'.repeat(99)}`)).toEqual(
        failureResult(400, 'The form body is larger than 100 bytes; send a larger body as JSON.'),
      );
      expect((await post(`a=${'x'.repeat(90)}`)).statusCode).toBe(200);
    } finally {
      delete process.env.MAX_FORM_BYTES;
    }
  });
});
