import { badRequest } from '#lib/errors.ts';
import { toInteger } from '#lib/numbers.ts';

/**
 * Field readers for draw and files bodies, which arrive as JSON or as jQuery-style forms (docs/draw.md):
 * in a form every value is a string, so numbers, booleans and JSON-carrying fields are read from either
 * form. Each reader throws 400 naming the field.
 */
export type Body = Record<string, unknown>;

export function asBody(body: unknown): Body {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body))
    throw badRequest('The request body must be an object.');
  return body as Body;
}

const has = (b: Body, k: string) => b[k] !== undefined && b[k] !== null && b[k] !== '';

export function optInt(b: Body, k: string): number | undefined {
  if (!has(b, k)) return undefined;
  const v = b[k];
  const n = toInteger(v);
  if (!Number.isSafeInteger(n)) throw badRequest(`Body field '${k}' must be an integer.`);
  return n;
}

export function int(b: Body, k: string): number {
  const n = optInt(b, k);
  if (n === undefined) throw badRequest(`Missing required body field '${k}'.`);
  return n;
}

export function optString(b: Body, k: string, max = 10_000): string | undefined {
  const v = b[k];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' && typeof v !== 'number') throw badRequest(`Body field '${k}' must be a string.`);
  const s = String(v);
  if (s.length > max) throw badRequest(`Body field '${k}' is longer than ${max} characters.`);
  return s;
}

export function bool(b: Body, k: string, fallback: boolean): boolean {
  const v = b[k];
  if (v === undefined || v === null || v === '') return fallback;
  if (v === true || v === 'true' || v === 1 || v === '1') return true;
  if (v === false || v === 'false' || v === 0 || v === '0') return false;
  throw badRequest(`Body field '${k}' must be true or false.`);
}

/** A field that may hold a JSON value or a string of JSON. `undefined` when absent. */
export function optJson(b: Body, k: string): unknown {
  const v = b[k];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    throw badRequest(`Body field '${k}' is not valid JSON.`);
  }
}

export function optObject(b: Body, k: string): Record<string, unknown> | undefined {
  const v = optJson(b, k);
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) throw badRequest(`Body field '${k}' must be an object.`);
  return v as Record<string, unknown>;
}

function toId(v: unknown, k: string): number {
  const n = toInteger(v);
  if (!Number.isSafeInteger(n) || n < 0) throw badRequest(`Body field '${k}' must hold integer ids.`);
  return n;
}

/** A list of ids: a JSON array, a string of one, `ids[]=1&ids[]=2`, or a single id. */
export function idList(b: Body, k: string, required = true): number[] {
  let v = optJson(b, k);
  if (v === undefined || v === null || v === '') {
    if (required) throw badRequest(`Missing required body field '${k}'.`);
    return [];
  }
  if (!Array.isArray(v)) {
    // qs turns `ids[0]=1` with a gap into an object keyed by index.
    if (typeof v === 'object') v = Object.values(v as object);
    else v = [v];
  }
  const list = v as unknown[];
  if (list.length > 10_000) throw badRequest(`Body field '${k}' lists more than 10000 ids.`);
  return list.map((x) => toId(x, k));
}

export function oneOf<T extends string>(b: Body, k: string, allowed: readonly T[]): T | undefined {
  const v = optString(b, k);
  if (v === undefined || v === '') return undefined;
  if (!(allowed as readonly string[]).includes(v)) {
    throw badRequest(`Body field '${k}' must be one of ${allowed.join(', ')}.`);
  }
  return v as T;
}
