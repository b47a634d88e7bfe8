import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import { badRequest } from '#lib/errors.ts';

/**
 * Deepest nesting of a JSON value a draw field may carry (docs/draw.md, "Bodies"): a GeoJSON
 * MultiPolygon is 5 levels, MMGIS's feature properties (style, `_` metadata) a few.
 */
export const MAX_JSON_DEPTH = 32;

/** Keys no draw value needs (as lib/http/inputGuards.ts refuses them in every body). */
const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Refuses what PostgreSQL's `jsonb` cannot store or what no draw field needs, with a 400 naming the
 * field's path, in the words of the generic input guard (lib/http/inputGuards.ts, which domain code may
 * not import): a NUL character (`\u0000`) in a string or a key, a `__proto__`, `constructor` or
 * `prototype` key, nesting deeper than `MAX_JSON_DEPTH`. Needed for JSON that arrives inside a string
 * (parsed after the generic guard ran). Iterative, so a value nested 200,000 deep costs a walk to level
 * 33, not a stack.
 */
export function guardJson(value: unknown, field: string): void {
  const stack: [unknown, string, number][] = [[value, field, 0]];
  while (stack.length) {
    const [v, path, depth] = stack.pop()!;
    if (typeof v === 'string') {
      if (v.includes('\u0000')) {
        throw badRequest(`Body field '${path}' must not contain a NUL character (\\u0000).`);
      }
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH) {
      throw badRequest(`Body field '${field}' is nested deeper than ${MAX_JSON_DEPTH} levels.`);
    }
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) stack.push([v[i], `${path}[${i}]`, depth + 1]);
      continue;
    }
    for (const key of Object.keys(v)) {
      if (FORBIDDEN_KEYS.has(key))
        throw badRequest(`Body field '${path}.${key}' is not allowed (a reserved key).`);
      if (key.includes('\u0000')) {
        throw badRequest(`Body field name ${JSON.stringify(key)} must not contain a NUL character.`);
      }
      stack.push([(v as Record<string, unknown>)[key], `${path}.${key}`, depth + 1]);
    }
  }
}

// The content of a string of JSON is JSON: its types are checked as they are, never coerced.
const strictTypes = new Ajv({ allErrors: false, coerceTypes: false, strict: false });

/** As lib/http/validation.ts words it: "Body field 'ids.3' must be integer." */
function describe(name: string, err: ErrorObject): string {
  const path = [name, ...err.instancePath.split('/').slice(1)].join('.');
  if (err.keyword === 'required') {
    return `Missing required body field '${path}.${(err.params as { missingProperty: string }).missingProperty}'.`;
  }
  const allowed =
    err.keyword === 'enum'
      ? `: ${(err.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`
      : '';
  return `Body field '${path}' ${err.message ?? 'is invalid'}${allowed}.`;
}

/** The value of a field declared by `jsonField`: the declared JSON (never its string form), or null. */
export type JsonValue<S> = (S extends JSONSchema ? Exclude<FromSchema<S>, string> : unknown) | null;

export interface JsonField<S> {
  /** The field's schema, for the endpoint's body schema (its types include `string`). */
  schema: S;
  /**
   * The field's value: absent → undefined; `''` (jQuery's encoding of null) or null → null; a string →
   * parsed as JSON and checked by the schema's other types; then bounded by `guardJson`. 400 naming the
   * field when it is no JSON or not of the declared shape.
   */
  read(value: unknown): JsonValue<S> | undefined;
}

/**
 * A body field that carries a JSON value either as JSON or as a string of JSON: MMGIS's client sends
 * `geometry`, `properties`, `template`, `split` and id lists as `JSON.stringify(...)` in a jQuery form,
 * where no JSON value can be sent otherwise. Declared once: `schema` lists `string` among its types
 * (with a `maxLength`), and the same schema without `string` checks the parsed value.
 */
export function jsonField<const S extends { type: readonly string[]; maxLength: number }>(
  name: string,
  schema: S,
): JsonField<S> {
  let check: ValidateFunction | undefined;
  const content = () => {
    check ??= strictTypes.compile({ ...schema, type: schema.type.filter((t) => t !== 'string') });
    return check;
  };
  const read = (value: unknown): JsonValue<S> | undefined => {
    if (value === undefined) return undefined;
    if (value === null || value === '') return null;
    let v = value;
    if (typeof value === 'string') {
      try {
        v = JSON.parse(value);
      } catch {
        throw badRequest(`Body field '${name}' is not valid JSON.`);
      }
      if (v === null) return null;
    }
    guardJson(v, name);
    const validate = content();
    if (!validate(v)) {
      throw badRequest(describe(name, validate.errors![0]));
    }
    return v as JsonValue<S>;
  };
  return { schema, read };
}

/** A list of ids as `jsonField`, a single id being a list of one; absent or null: an empty list. */
export function idsField<const S extends { type: readonly string[]; maxLength: number }>(
  name: string,
  schema: S,
): { schema: S; read(value: unknown): number[] } {
  const field = jsonField(name, schema);
  const read = (value: unknown): number[] => {
    const v = field.read(value) as unknown;
    if (v === undefined || v === null) return [];
    return Array.isArray(v) ? (v as number[]) : [v as number];
  };
  return { schema, read };
}
