import { badRequest } from '#lib/errors.ts';
import { toNumber } from '#lib/numbers.ts';

/** A finite number from a JSON number or a form's string; 400 naming `field` otherwise. */
export function numberField(v: unknown, field: string, min = -Infinity, max = Infinity): number {
  const n = toNumber(v);
  if (!Number.isFinite(n)) throw badRequest(`'${field}' must be a number.`);
  if (n < min || n > max) throw badRequest(`'${field}' must be between ${min} and ${max}.`);
  return n;
}

export function integerField(v: unknown, field: string, min: number, max: number): number {
  const n = numberField(v, field, min, max);
  if (!Number.isInteger(n)) throw badRequest(`'${field}' must be a whole number.`);
  return n;
}

const MAX_BANDS = 10000;

/**
 * Band numbers from a list of numbers and inclusive `[from, to]` ranges, or MMGIS's string form
 * (`"[[1,10],12]"`); 1-based, each within [1, `count`].
 *
 * @example parseBands('[[1,3],5]', 6) // → [1, 2, 3, 5]
 */
export function parseBands(v: unknown, count: number): number[] {
  let list = v;
  if (typeof list === 'string') {
    try {
      list = JSON.parse(list);
    } catch {
      throw badRequest("'bands' must be a list of band numbers and [from, to] ranges, e.g. [[1,10],12].");
    }
  }
  if (typeof list === 'number') list = [list];
  if (!Array.isArray(list) || list.length === 0) {
    throw badRequest("'bands' must be a list of band numbers and [from, to] ranges, e.g. [[1,10],12].");
  }
  const out: number[] = [];
  const band = (b: unknown) => {
    if (typeof b !== 'number' || !Number.isInteger(b) || b < 1 || b > count) {
      throw badRequest(`'bands' names band ${JSON.stringify(b)}; the raster has bands 1 to ${count}.`);
    }
    return b;
  };
  for (const item of list) {
    if (Array.isArray(item)) {
      if (item.length !== 2) throw badRequest("'bands' ranges are [from, to] pairs.");
      const [a, b] = [band(item[0]), band(item[1])];
      if (a > b) throw badRequest(`'bands' range [${a}, ${b}] is reversed.`);
      for (let i = a; i <= b; i++) out.push(i);
    } else out.push(band(item));
    if (out.length > MAX_BANDS) throw badRequest(`'bands' names more than ${MAX_BANDS} bands.`);
  }
  return out;
}
