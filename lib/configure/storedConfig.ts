// What a stored configuration may be: a plain object, nested at most `MAX_JSON_DEPTH` deep, at a version
// that fits PostgreSQL's `integer`.

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
