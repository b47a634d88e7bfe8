import { endpoint } from '#lib/http/endpoint.ts';
import { shortenerAnswer } from '#lib/http/openapi/shapes/misc.ts';
import { assertCode, expand } from '#lib/shortener/shortener.ts';

/** JSON or MMGIS's jQuery form post: an object of fields (form values arrive as strings). */
const body = { type: 'object' } as const;
const fields = (b: unknown) => b as Record<string, unknown>;

/** POST /api/shortener/expand {short} (JSON or form) → {status, message, body: {url}}; unknown: 404. */
export const handler = endpoint(
  { auth: 'viewer', body: 'json-or-form', schema: { body }, responses: { 200: { schema: shortenerAnswer } } },
  async ({ body, db }) => {
    const url = await expand(db.sql, assertCode(fields(body).short));
    return { status: 'success', message: 'Successfully expanded URL.', body: { url } };
  },
);
