import { describe, expect, it } from 'vitest';
import { parsePeriod } from '#lib/auth/tokens.ts';
import { binary, rawJson, respond, toProxyResult } from '#lib/http/response.ts';
import { compileSchemas, describeError } from '#lib/http/validation.ts';

describe('toProxyResult', () => {
  it.each([
    [{ a: 1 }, 200, '{"a":1}', false],
    [respond(201, { ok: true }), 201, '{"ok":true}', false],
    [respond(204), 204, '', false],
    [
      rawJson(200, '{"type":"FeatureCollection","features":[]}'),
      200,
      '{"type":"FeatureCollection","features":[]}',
      false,
    ],
    [binary(200, Buffer.from([1, 2, 3]).toString('base64'), 'application/x-protobuf'), 200, 'AQID', true],
  ])('%#', (input, status, body, b64) => {
    const r = toProxyResult(input);
    expect(r.statusCode).toBe(status);
    expect(r.body).toBe(body);
    expect(Boolean(r.isBase64Encoded)).toBe(b64);
  });

  it('puts cookies in multiValueHeaders', () => {
    const r = toProxyResult(respond(200, {}, { cookies: ['a=1', 'b=2'] }));
    expect(r.multiValueHeaders).toEqual({ 'Set-Cookie': ['a=1', 'b=2'] });
  });
});

describe('schema errors name the field', () => {
  const v = compileSchemas({
    query: { type: 'object', properties: { limit: { type: 'integer' } } },
    body: {
      type: 'object',
      required: ['name'],
      properties: {
        name: { type: 'string', maxLength: 5 },
        kind: { enum: ['a', 'b'] },
        nested: { type: 'object', properties: { x: { type: 'number' } } },
      },
    },
  });
  it.each([
    [{}, "Missing required body field 'name'."],
    [{ name: 3 }, "Body field 'name' must be string."],
    [{ name: 'toolong' }, "Body field 'name' must NOT have more than 5 characters (maxLength 5)."],
    [{ name: 'a', kind: 'c' }, "Body field 'kind' must be equal to one of the allowed values: a, b."],
    [{ name: 'a', nested: { x: 'y' } }, "Body field 'nested.x' must be number."],
  ])('%j', (body, message) => {
    expect(v.body!(body)).toBe(false);
    expect(describeError('body', v.body!.errors![0])).toBe(message);
  });
  it('coerces query strings', () => {
    const q: Record<string, unknown> = { limit: '10' };
    expect(v.query!(q)).toBe(true);
    expect(q.limit).toBe(10);
    expect(v.query!({ limit: 'ten' })).toBe(false);
    expect(describeError('query', v.query!.errors![0])).toBe("Query parameter 'limit' must be integer.");
  });
});

describe('parsePeriod', () => {
  it.each([
    [undefined, null],
    ['never', null],
    [1, 1],
    ['86400000', 86400000],
  ])('%j → %j', (input, out) => expect(parsePeriod(input)).toBe(out));
  it.each([[0], [-1], ['x'], [1.5], [Number.MAX_VALUE]])('%j is refused', (input) =>
    expect(() => parsePeriod(input)).toThrow(/period/),
  );
});
