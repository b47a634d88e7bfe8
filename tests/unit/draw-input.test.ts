import type { APIGatewayProxyEvent } from 'aws-lambda';
import qs from 'qs';
import { describe, expect, it } from 'vitest';
import { guardJson, idsField, jsonField, MAX_JSON_DEPTH } from '#lib/draw/jsonField.ts';
import { parseFormBody } from '#lib/http/formBody.ts';

const form = (body: string, type = 'application/x-www-form-urlencoded; charset=UTF-8') =>
  ({ headers: { 'Content-Type': type }, body, isBase64Encoded: false }) as unknown as APIGatewayProxyEvent;

describe('form bodies (jQuery $.param style)', () => {
  it('parses nested keys and arrays as jQuery sends them', () => {
    const sent = { file_id: 3, ids: [1, 2], a: { b: { c: 'd' } }, flag: true };
    const event = form(qs.stringify(sent, { arrayFormat: 'brackets' }));
    expect(parseFormBody(event)).toBe(true);
    expect(event.body).toEqual({ file_id: '3', ids: ['1', '2'], a: { b: { c: 'd' } }, flag: 'true' });
  });

  it('leaves JSON requests to the JSON parser', () => {
    const event = form('{"a":1}', 'application/json');
    expect(parseFormBody(event)).toBe(false);
    expect(event.body).toBe('{"a":1}');
  });

  it('keeps more than 20 indexed array entries an array', () => {
    const ids = Array.from({ length: 50 }, (_, i) => i);
    const event = form(qs.stringify({ ids }, { arrayFormat: 'indices' }));
    parseFormBody(event);
    expect((event.body as unknown as { ids: string[] }).ids).toHaveLength(50);
  });
});

describe('draw fields carrying JSON (lib/draw/jsonField.ts)', () => {
  const props = jsonField('properties', { type: ['object', 'null', 'string'], maxLength: 100 });
  const ids = idsField('ids', {
    type: ['integer', 'array', 'string'],
    minimum: 0,
    items: { type: 'integer', minimum: 0 },
    maxItems: 3,
    uniqueItems: true,
    maxLength: 100,
  });

  it("read a JSON value or a string of JSON, jQuery's empty string being null", () => {
    expect(props.read({ a: 1 })).toEqual({ a: 1 });
    expect(props.read('{"a":1}')).toEqual({ a: 1 });
    expect(props.read('')).toBeNull();
    expect(props.read(undefined)).toBeUndefined();
    expect(() => props.read('{')).toThrow("Body field 'properties' is not valid JSON.");
    expect(() => props.read('[1]')).toThrow(/^Body field 'properties' must be object,null\.$/);
    expect(ids.read('[1,2]')).toEqual([1, 2]);
    expect(ids.read('7')).toEqual([7]);
    expect(ids.read([1, 2])).toEqual([1, 2]);
    expect(() => ids.read('[1,1]')).toThrow(/'ids' must NOT have duplicate items/);
    expect(() => ids.read('[1,2,3,4]')).toThrow(/'ids' must NOT have more than 3 items/);
    expect(() => ids.read('["x"]')).toThrow(/'ids\.0' must be integer/);
  });

  it('refuses NUL characters, __proto__ keys and deep nesting, naming the field', () => {
    expect(() => props.read({ a: { b: 'x\u0000' } })).toThrow(
      "Body field 'properties.a.b' must not contain a NUL",
    );
    expect(() => props.read('{"a\\u0000":1}')).toThrow(
      /^Body field name "a\\u0000" must not contain a NUL character\.$/,
    );
    expect(() => props.read('{"__proto__":{"x":1}}')).toThrow(
      /'properties\.__proto__' is not allowed \(a reserved key\)/,
    );
    let deep: unknown = 1;
    for (let i = 0; i < 200_000; i++) deep = { a: deep };
    expect(() => guardJson(deep, 'properties')).toThrow(
      `Body field 'properties' is nested deeper than ${MAX_JSON_DEPTH} levels.`,
    );
    let ok: unknown = 1;
    for (let i = 0; i < MAX_JSON_DEPTH; i++) ok = [ok];
    expect(() => guardJson(ok, 'g')).not.toThrow();
    expect(() => guardJson([ok], 'g')).toThrow(/nested deeper/);
  });
});
