import { endpoint } from '#lib/http/endpoint.ts';
import { fieldsOf } from '#lib/http/fields.ts';
import { assertCode, expand } from '#lib/shortener/shortener.ts';

/** POST /api/shortener/expand {short} (JSON or form) → {status, message, body: {url}}; unknown: 404. */
export const handler = endpoint({ auth: 'viewer', body: 'raw' }, async ({ rawBody, headers, db }) => {
  const url = await expand(db.sql, assertCode(fieldsOf(rawBody, headers).short));
  return { status: 'success', message: 'Successfully expanded URL.', body: { url } };
});
