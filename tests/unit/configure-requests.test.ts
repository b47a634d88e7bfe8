import { describe, expect, it } from 'vitest';
import { placement } from '#lib/configure/requests.ts';
import { compileSchemas, describeError } from '#lib/http/validation.ts';

/** The configure bodies' `placement` as the endpoint validates it (JSON types, or a form's strings). */
const body = { type: 'object', properties: { placement } };
const json = compileSchemas({ body }).body!;
const form = compileSchemas({ body }).formBody!();

function check(
  validate: typeof json,
  value: unknown,
): { ok: true; value: unknown } | { ok: false; message: string } {
  const data = { placement: value };
  if (validate(data)) return { ok: true, value: data.placement };
  return { ok: false, message: describeError('body', validate.errors![0]) };
}

describe('placement schema', () => {
  it.each([
    [null],
    [{}],
    [{ path: 'H1' }],
    [{ index: 0 }],
    [{ path: 'H1.Inner', index: -5 }],
    [{ path: 'x'.repeat(4096), index: 2147483647 }],
    [{ path: null, index: null }],
    // Out of range: accepted here, fitted to the list when applied (docs/configure.md).
    [{ index: 2147483648 }],
    [{ index: 1e308 }],
    [{ index: -1e308 }],
  ])('accepts %j', (input) => {
    expect(check(json, input)).toEqual({ ok: true, value: input });
  });

  it.each([
    ['a string', 'H1', "'placement' must be object,null"],
    ['an array', [], "'placement' must be object,null"],
    ['a numeric path', { path: 3 }, "'placement.path' must be string,null"],
    ['a path over 4096 characters', { path: 'x'.repeat(4097) }, "'placement.path'"],
    ['a fractional index', { index: 1.5 }, "'placement.index' must be integer,null"],
    ['a string index in JSON', { index: '1' }, "'placement.index' must be integer,null"],
    ['an infinite index', { index: Number.POSITIVE_INFINITY }, "'placement.index'"],
  ])('refuses %s naming the field', (_label, input, message) => {
    const r = check(json, input);
    expect(r.ok).toBe(false);
    expect((r as { message: string }).message).toContain(message);
  });

  it("coerces a form's strings (placement[index]=2)", () => {
    expect(check(form, { path: 'H1', index: '2' })).toEqual({ ok: true, value: { path: 'H1', index: 2 } });
    expect(check(form, { index: 'abc' }).ok).toBe(false);
    expect(check(form, { index: '1e308' })).toEqual({ ok: true, value: { index: 1e308 } });
  });
});
