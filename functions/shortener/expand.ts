import { endpoint } from '#lib/http/endpoint.ts';
import { fieldsOf, jsonOrForm } from '#lib/http/formBody.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { shortenerAnswer } from '#lib/http/openapi/shapes/misc.ts';
import { assertCode, expand } from '#lib/shortener/shortener.ts';

/** POST /api/shortener/expand {short} (JSON or form) → {status, message, body: {url}}; unknown: 404. */
export const handler = endpoint(
  { auth: 'viewer', ...jsonOrForm, responses: ok(shortenerAnswer) },
  async ({ body, db }) => {
    const url = await expand(db.sql, assertCode(fieldsOf(body).short));
    return { status: 'success', message: 'Successfully expanded URL.', body: { url } };
  },
);
