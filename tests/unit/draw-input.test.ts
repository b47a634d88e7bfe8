import type { APIGatewayProxyEvent } from 'aws-lambda';
import qs from 'qs';
import { describe, expect, it } from 'vitest';
import { editorNames, editors as editorsSchema, editorsText, idList, properties } from '#lib/draw/schemas.ts';
import { parseFormBody } from '#lib/http/formBody.ts';
import { MAX_INPUT_DEPTH } from '#lib/http/inputGuards.ts';
import { jsonField } from '#lib/http/jsonField.ts';

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

describe('draw fields carrying JSON (jsonField, lib/http/jsonField.ts, with lib/draw/schemas.ts)', () => {
  const props = (v: unknown) => jsonField(v, 'properties', properties);
  const idsSchema = {
    type: ['integer', 'array', 'null'],
    minimum: 0,
    items: { type: 'integer', minimum: 0 },
    maxItems: 3,
    uniqueItems: true,
  } as const;
  const ids = (v: unknown) => idList(jsonField(v, 'ids', idsSchema));

  it("read a JSON value or a string of JSON, jQuery's empty string being null", () => {
    expect(props({ a: 1 })).toEqual({ a: 1 });
    expect(props('{"a":1}')).toEqual({ a: 1 });
    expect(props('')).toBeNull();
    expect(props(undefined)).toBeUndefined();
    expect(() => props('{')).toThrow("Body field 'properties' is not valid JSON.");
    expect(() => props('[1]')).toThrow(/^Body field 'properties' must be object,null\.$/);
    expect(ids('[1,2]')).toEqual([1, 2]);
    expect(ids('7')).toEqual([7]);
    expect(ids([1, 2])).toEqual([1, 2]);
    expect(ids('')).toEqual([]);
    expect(ids(undefined)).toEqual([]);
    expect(() => ids('[1,1]')).toThrow(/'ids' must NOT have duplicate items/);
    expect(() => ids('[1,2,3,4]')).toThrow(/'ids' must NOT have more than 3 items/);
    expect(() => ids('["x"]')).toThrow(/'ids\.0' must be integer/);
  });

  it('public_editors: a list, its JSON text or a comma-separated string, checked alike', () => {
    const read = (v: unknown) => editorNames(jsonField(editorsText(v), 'public_editors', editorsSchema));
    expect(read('a, b,a,, ')).toEqual(['a', 'b']);
    expect(read('["a"," b "]')).toEqual(['a', 'b']);
    expect(read('')).toEqual([]);
    expect(read(undefined)).toBeUndefined();
    expect(() => read(`a,${'x'.repeat(65)}`)).toThrow(/'public_editors\.1' must NOT have more than 64/);
    expect(() => read(Array.from({ length: 1001 }, (_, i) => `u${i}`).join(','))).toThrow(
      /'public_editors' must NOT have more than 1000 items/,
    );
  });

  it('refuses in JSON text NUL characters, __proto__ keys and deep nesting, naming the field', () => {
    expect(() => props('{"a":{"b":"x\\u0000"}}')).toThrow(
      "Body field 'properties.a.b' must not contain a NUL",
    );
    expect(() => props('{"a\\u0000":1}')).toThrow(
      /^Body field name "a\\u0000" must not contain a NUL character\.$/,
    );
    expect(() => props('{"__proto__":{"x":1}}')).toThrow(
      /'properties\.__proto__' is not allowed \(a reserved key\)/,
    );
    const deep = `${'{"a":'.repeat(200_000)}1${'}'.repeat(200_000)}`;
    expect(() => props(deep)).toThrow(
      new RegExp(`^Body field 'properties(\\.a)*' is nested deeper than ${MAX_INPUT_DEPTH} levels\\.$`),
    );
    const ok = `${'['.repeat(MAX_INPUT_DEPTH)}1${']'.repeat(MAX_INPUT_DEPTH)}`;
    expect(() => jsonField(ok, 'g', {})).not.toThrow();
    expect(() => jsonField(`[${ok}]`, 'g', {})).toThrow(/nested deeper/);
  });
});
