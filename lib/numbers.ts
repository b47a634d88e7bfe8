/**
 * Numbers a client sends where a form or an MMGIS-era config may hold them as strings: one reading for
 * every request field and config value that takes "a number, or a string holding one". (A stored
 * property value follows the numeric rule of lib/geodatasets/numeric.ts instead.) Both answer NaN for
 * anything else, so the caller's range check refuses it with its own message.
 */

/** A JSON number, or a non-blank string `Number()` reads (`" 12 "`, `"1e3"`); NaN otherwise. */
export function toNumber(v: unknown): number {
  if (typeof v === 'number') return v;
  return typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
}

const INTEGER = /^-?\d{1,15}$/;

/** A JSON number, or a string of at most 15 digits with an optional minus (spaces around ignored); NaN otherwise. */
export function toInteger(v: unknown): number {
  if (typeof v === 'number') return v;
  return typeof v === 'string' && INTEGER.test(v.trim()) ? Number(v) : Number.NaN;
}
