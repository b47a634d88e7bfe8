import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { shortenerAnswer } from '#lib/http/openapi/shapes/misc.ts';
import { expand, shortCode } from '#lib/shortener/shortener.ts';

const body = { type: 'object', required: ['short'], properties: { short: shortCode } } as const;

/** POST /api/shortener/expand {short} (JSON or form) → {status, message, body: {url}}; unknown: 404. */
export const handler = endpoint(
  { auth: 'viewer', schema: { body }, responses: ok(shortenerAnswer) },
  async ({ body, db }) => {
    const url = await expand(db.sql, body.short);
    return { status: 'success', message: 'Successfully expanded URL.', body: { url } };
  },
);
