import type { APIGatewayProxyEvent } from 'aws-lambda';
import qs from 'qs';
import { describe, expect, it } from 'vitest';
import { bool, idList, int, optJson, optObject } from '#lib/draw/input.ts';
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

describe('draw field readers', () => {
  it('read numbers, booleans, JSON strings and id lists from either encoding', () => {
    expect(int({ a: '12' }, 'a')).toBe(12);
    expect(int({ a: 12 }, 'a')).toBe(12);
    expect(() => int({ a: '1.5' }, 'a')).toThrow(/'a' must be an integer/);
    expect(() => int({}, 'a')).toThrow(/Missing required body field 'a'/);
    expect(bool({ a: 'false' }, 'a', true)).toBe(false);
    expect(bool({}, 'a', true)).toBe(true);
    expect(() => bool({ a: 'maybe' }, 'a', true)).toThrow(/'a'/);
    expect(optJson({ g: '{"type":"Point"}' }, 'g')).toEqual({ type: 'Point' });
    expect(() => optJson({ g: '{' }, 'g')).toThrow(/'g' is not valid JSON/);
    expect(() => optObject({ p: '[1]' }, 'p')).toThrow(/'p' must be an object/);
    expect(idList({ ids: '[1,2]' }, 'ids')).toEqual([1, 2]);
    expect(idList({ ids: ['1', '2'] }, 'ids')).toEqual([1, 2]);
    expect(idList({ id: 7 }, 'id')).toEqual([7]);
    expect(() => idList({ ids: ['x'] }, 'ids')).toThrow(/'ids'/);
  });
});
