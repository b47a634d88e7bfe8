import middy from '@middy/core';
import { describe, expect, it } from 'vitest';
import { HttpError } from '#lib/errors.ts';
import { parseForm } from '#lib/http/formBody.ts';
import { guardInput, MAX_INPUT_DEPTH, parseGuardedJson } from '#lib/http/inputGuards.ts';
import { errorResponse } from '#lib/http/middleware/errorResponse.ts';
import { proxyResult } from '#lib/http/middleware/proxyResult.ts';
import type { EndpointContext } from '#lib/http/middleware/types.ts';
import { validator } from '#lib/http/middleware/validator.ts';
import { compileSchemas, declaredNames, describeError } from '#lib/http/validation.ts';
import { failureResult, fakeContext, fakeEvent } from './fakeRequest.ts';

/** The 400 message `guardInput` throws, or null when the value passes. */
function refusal(value: unknown, where = 'body field'): string | null {
  try {
    guardInput(value, where);
    return null;
  } catch (e) {
    expect(e).toBeInstanceOf(HttpError);
    expect((e as HttpError).statusCode).toBe(400);
    return (e as Error).message;
  }
}

const nested = (depth: number) => JSON.parse(`${'['.repeat(depth)}${']'.repeat(depth)}`);

describe('guardInput (lib/http/inputGuards.ts)', () => {
  it('passes ordinary JSON, unicode and nesting up to the limit', () => {
    expect(refusal({ a: [1, 'é', { b: null, c: true }], d: '\u0001' })).toBeNull();
    expect(refusal(nested(MAX_INPUT_DEPTH))).toBeNull();
  });

  it('refuses NUL anywhere, naming the field path', () => {
    expect(refusal({ a: [{ b: 'x\u0000y' }] })).toBe(
      "Body field 'a[0].b' must not contain a NUL character (\\u0000).",
    );
    expect(refusal({ mission: '\u0000' }, 'query parameter')).toBe(
      "Query parameter 'mission' must not contain a NUL character (\\u0000).",
    );
    expect(refusal({ 'k\u0000': 1 })).toMatch(/must not contain a NUL character/);
    expect(refusal('a\u0000')).toMatch(/^The request body must not contain a NUL/);
  });

  it('refuses nesting past the limit, also 200,000 deep, fast and without recursion', () => {
    expect(refusal(nested(MAX_INPUT_DEPTH + 1))).toMatch(/nested deeper than 32 levels/);
    const deep = nested(200_000);
    const t0 = process.hrtime.bigint();
    expect(refusal(deep)).toMatch(/^Body field '(\[0\])+' is nested deeper than 32 levels\.$/);
    expect(refusal(JSON.parse(`${'{"a":'.repeat(200_000)}1${'}'.repeat(200_000)}`))).toMatch(/nested deeper/);
    // A bound, not a benchmark: a walk that visited all 200,000 levels would still pass, a recursion would throw.
    expect(Number(process.hrtime.bigint() - t0) / 1e9).toBeLessThan(5);
  });

  it.each(['__proto__', 'constructor', 'prototype'])('refuses the key %s, naming it', (key) => {
    expect(refusal(JSON.parse(`{"a":{"${key}":{"x":1}}}`))).toBe(
      `Body field 'a.${key}' is not allowed (a reserved key).`,
    );
  });

  it("a form's reserved keys: __proto__ and constructor dropped by its parser, prototype refused", () => {
    const form = parseForm('__proto__[x]=1&constructor=2&a[prototype]=3&b=4');
    expect(Object.keys(form)).toEqual(['a', 'b']);
    expect(refusal(form)).toBe("Body field 'a.prototype' is not allowed (a reserved key).");
  });

  it('parseGuardedJson: JSON inside a string field, its fields named under that field', () => {
    expect(parseGuardedJson('{"type":"Point"}', 'geometry')).toEqual({ type: 'Point' });
    expect(() => parseGuardedJson('{"a":"\\u0000"}', 'geometry')).toThrow("Body field 'geometry.a' must not");
    expect(() => parseGuardedJson('{"__proto__":{}}', 'geometry')).toThrow(
      "'geometry.__proto__' is not allowed",
    );
    expect(() => parseGuardedJson('{', 'geometry')).toThrow("Body field 'geometry' is not valid JSON.");
  });
});

describe('describeError names the field and the rule', () => {
  const schema = {
    type: 'object',
    properties: {
      s: { type: 'string', maxLength: 3, pattern: '^[a-z]*$' },
      a: { type: 'array', maxItems: 2, uniqueItems: true },
      n: { type: 'number', minimum: 0, maximum: 10 },
    },
  };
  const validate = compileSchemas({ body: schema }).body!;
  it.each([
    [{ s: 'abcd' }, "Body field 's' must NOT have more than 3 characters (maxLength 3)."],
    [{ s: 'AB' }, `Body field 's' must match pattern "^[a-z]*$".`],
    [{ a: [1, 2, 3] }, "Body field 'a' must NOT have more than 2 items (maxItems 2)."],
    [{ a: [1, 1] }, "Body field 'a' must NOT have duplicate items (items 0 and 1 are equal; uniqueItems)."],
    [{ n: -1 }, "Body field 'n' must be >= 0 (minimum 0)."],
    [{ n: 1e308 }, "Body field 'n' must be <= 10 (maximum 10)."],
  ])('%j', (value, message) => {
    expect(validate(value)).toBe(false);
    expect(describeError('body', validate.errors![0])).toBe(message);
  });
});

describe('declaredNames', () => {
  it('lists properties of the schema and its branches; null for a free-form object', () => {
    expect([...declaredNames({ properties: { a: {} }, if: { properties: { b: {} } } })!].sort()).toEqual([
      'a',
      'b',
    ]);
    expect(declaredNames({ type: 'object' })).toBeNull();
    expect(declaredNames({ properties: { a: {} }, additionalProperties: true })).toBeNull();
    expect(declaredNames({ properties: { a: {} }, additionalProperties: false })).toEqual(new Set(['a']));
  });
});

describe('validator: undeclared input (docs/input.md)', () => {
  const handler = middy(async (_event: unknown, context: EndpointContext) => context.parts).use([
    errorResponse(),
    proxyResult(),
    // The default (DROP_UNDECLARED): undeclared input is dropped for every endpoint.
    validator({
      schemas: {
        query: {
          type: 'object',
          properties: { mission: { type: 'string' }, ids: { type: 'array', items: { type: 'integer' } } },
        },
        body: { type: 'object', properties: { name: { type: 'string' } } },
      },
    }),
  ] as never[]);
  const run = async (over: Parameters<typeof fakeEvent>[0]) => {
    const res = (await handler(fakeEvent(over), fakeContext())) as unknown as {
      statusCode: number;
      body: string;
    };
    return { status: res.statusCode, body: JSON.parse(res.body) };
  };

  it('drops undeclared query parameters and body fields; a repeated array parameter keeps every value', async () => {
    const res = await run({
      queryStringParameters: { mission: 'm', _: '123', ids: '2' },
      multiValueQueryStringParameters: { mission: ['m'], _: ['123'], ids: ['1', '2'] },
      body: { name: 'n', extra: 1 } as unknown as string,
    });
    expect(res).toEqual({
      status: 200,
      body: { query: { mission: 'm', ids: [1, 2] }, path: {}, body: { name: 'n' }, rawBody: null },
    });
  });

  it('still guards undeclared parameters (NUL, reserved keys) before anything else', async () => {
    expect(await handler(fakeEvent({ queryStringParameters: { other: 'a\u0000' } }), fakeContext())).toEqual(
      failureResult(400, "Query parameter 'other' must not contain a NUL character (\\u0000)."),
    );
    expect(
      await handler(fakeEvent({ queryStringParameters: JSON.parse('{"__proto__":"x"}') }), fakeContext()),
    ).toEqual(failureResult(400, "Query parameter '__proto__' is not allowed (a reserved key)."));
    expect(
      await handler(fakeEvent({ body: JSON.parse('{"name":"a","constructor":{}}') }), fakeContext()),
    ).toEqual(failureResult(400, "Body field 'constructor' is not allowed (a reserved key)."));
  });
});
