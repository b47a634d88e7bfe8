import type { ValidateFunction } from 'ajv';
import { badRequest } from '#lib/errors.ts';
import { parseGuardedJson } from './inputGuards.ts';
import { compileSchemas, describeError } from './validation.ts';

/**
 * A body field that MMGIS's clients send either as a value or as the JSON text of one (its map client
 * posts `queries=<JSON>`, `geometry=<JSON>` in a form, where no JSON value can be sent otherwise):
 * declared once as `jsonOr(schema, maxLength)` in the endpoint's body schema, read with `jsonField`. The
 * text is bounded by `maxLength` like any string.
 */
export function jsonOr<const S extends object>(schema: S, maxLength: number) {
  // if/else, not anyOf: a failure is reported by the branch the value took (naming the item at fault), and
  // a form's string is never coerced by the other branch (ajv coerces in place).
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword
  return { if: { type: 'string' }, then: { type: 'string', maxLength }, else: schema } as const;
}

const compiled = new WeakMap<object, ValidateFunction>();

function validatorOf(schema: object): ValidateFunction {
  let v = compiled.get(schema);
  if (!v) {
    v = compileSchemas({ body: schema }).body!;
    compiled.set(schema, v);
  }
  return v;
}

/**
 * The value of a `jsonOr(schema)` field. JSON text is parsed with `parseGuardedJson` (the input guards:
 * no NUL, nesting, reserved keys; malformed JSON is a 400 naming the field), `''` (jQuery's encoding of
 * null) is read as null, and the result is checked against the same `schema` (400 naming the field, as
 * the endpoint's own validation would). A value that arrived as JSON, or absent (undefined), was checked
 * by the endpoint already and is returned as it is.
 */
export function jsonField<T>(value: unknown, field: string, schema: object): T {
  if (typeof value !== 'string') return value as T;
  const parsed = value === '' ? null : parseGuardedJson(value, field);
  const validate = validatorOf(schema);
  if (!validate(parsed)) {
    const err = validate.errors![0];
    throw badRequest(describeError('body', { ...err, instancePath: `/${field}${err.instancePath}` }));
  }
  return parsed as T;
}
