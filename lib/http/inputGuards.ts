import { badRequest } from '#lib/errors.ts';

/**
 * Deepest object/array nesting any input may have (docs/input.md): a GeoJSON MultiPolygon's coordinates
 * are 4 levels inside a feature, a configuration's layer tree a dozen; 32 leaves room for both.
 */
export const MAX_INPUT_DEPTH = 32;

/** Object keys no input may carry: they reach prototypes when a handler merges or assigns objects. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** A field path as messages show it: `a.b[2].c` (the root is `where`'s own name, e.g. "body field"). */
function fieldPath(parents: (string | number)[]): string {
  let out = '';
  for (const p of parents) out += typeof p === 'number' ? `[${p}]` : out ? `.${p}` : p;
  return out;
}

/**
 * Refuses, with a 400 naming the field, a value (a parsed JSON body, a query, path parameters, or JSON
 * that arrived inside a string field) that holds:
 * - a string or key containing U+0000 (PostgreSQL text cannot store it; it truncates C strings),
 * - objects or arrays nested deeper than `maxDepth` (default `MAX_INPUT_DEPTH`),
 * - a key `__proto__`, `constructor` or `prototype`.
 * Iterative (an explicit stack), so a value nested 200,000 deep costs no recursion and stops at the limit.
 *
 * @param where How the message names the value's root, e.g. `body field`, `query parameter`.
 * @param prefix The field the value came from, when it is JSON inside a string field (`geometry`).
 */
export function guardInput(
  value: unknown,
  where: string,
  { maxDepth = MAX_INPUT_DEPTH, prefix }: { maxDepth?: number; prefix?: string } = {},
): void {
  type Frame = { value: unknown; path: (string | number)[] };
  const stack: Frame[] = [{ value, path: prefix ? [prefix] : [] }];
  const base = prefix ? 1 : 0;
  const named = (path: (string | number)[]) =>
    path.length ? `${where} '${fieldPath(path)}'` : where === 'body field' ? 'The request body' : where;
  const nul = (path: (string | number)[]) =>
    badRequest(`${cap(named(path))} must not contain a NUL character (\\u0000).`);
  while (stack.length > 0) {
    const { value: v, path } = stack.pop()!;
    if (typeof v === 'string') {
      if (v.includes('\u0000')) throw nul(path);
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (path.length - base >= maxDepth) {
      throw badRequest(`${cap(named(path))} is nested deeper than ${maxDepth} levels.`);
    }
    // Only objects and arrays are stacked (with their path); strings are checked in place.
    const entries: [string | number, unknown][] = Array.isArray(v)
      ? v.map((item, i) => [i, item])
      : Object.keys(v).map((key) => {
          if (FORBIDDEN_KEYS.has(key)) {
            throw badRequest(`${cap(named([...path, key]))} is not allowed (a reserved key).`);
          }
          if (key.includes('\u0000')) {
            throw badRequest(`${cap(where)} name ${JSON.stringify(key)} must not contain a NUL character.`);
          }
          return [key, (v as Record<string, unknown>)[key]];
        });
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, item] = entries[i];
      if (typeof item === 'string') {
        if (item.includes('\u0000')) throw nul([...path, key]);
      } else if (item !== null && typeof item === 'object') stack.push({ value: item, path: [...path, key] });
    }
  }
}

const cap = (s: string) => s[0].toUpperCase() + s.slice(1);

/**
 * `JSON.parse` of JSON sent inside a string field (a form's `geometry`), then `guardInput` on the result,
 * its fields named under `field` (`lib/http/jsonField.ts` reads such fields). Malformed JSON: 400 naming
 * the field.
 */
export function parseGuardedJson(text: string, field: string, where = 'body field'): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest(`${cap(where)} '${field}' is not valid JSON.`);
  }
  guardInput(value, where, { prefix: field });
  return value;
}
