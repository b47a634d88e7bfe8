import { badRequest } from '#lib/errors.ts';

/**
 * Accepts a JSON value, or (as MMGIS clients sometimes send) a string holding JSON; a string that is not
 * JSON is a 400 naming `field`.
 */
export function parseJsonish(value: unknown, field: string): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    throw badRequest(`'${field}' must be a JSON object (or a string holding one); it is not valid JSON.`);
  }
}

export function isPlainObject(x: unknown): x is Record<string, any> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** Versions are stored as PostgreSQL `integer`: a larger requested version is a 400, not a database error. */
export const MAX_VERSION = 2147483647;

/** Deepest nesting of arrays/objects accepted in a stored configuration (bounds recursion everywhere). */
export const MAX_JSON_DEPTH = 100;

/** Whether `value` nests arrays/objects deeper than `max` levels (checked without recursion). */
export function nestedDeeperThan(value: unknown, max = MAX_JSON_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}
