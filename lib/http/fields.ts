import { header } from '#lib/auth/principal.ts';
import { badRequest } from '#lib/errors.ts';

/**
 * The body fields of a request that MMGIS's map client posts as a jQuery form
 * (`application/x-www-form-urlencoded`, flat fields) or that a script posts as JSON: both become one
 * plain object. Form values stay strings; the domain parsers coerce and name the field at fault.
 *
 * @example fieldsOf('x=1&bands=%5B%5B1%2C3%5D%5D', {'content-type': 'application/x-www-form-urlencoded'})
 *   // → { x: '1', bands: '[[1,3]]' }
 */
export function fieldsOf(
  raw: string | null,
  headers: Record<string, string | undefined>,
): Record<string, unknown> {
  const text = raw ?? '';
  if (text.trim() === '') return {};
  const type = (header(headers, 'content-type') ?? '').toLowerCase();
  if (type.startsWith('application/x-www-form-urlencoded')) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of new URLSearchParams(text)) out[k] = v;
    return out;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw badRequest(`The request body is not valid JSON: ${(e as Error).message}.`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw badRequest('The request body must be a JSON object.');
  }
  return parsed as Record<string, unknown>;
}
