import { badRequest } from '#lib/errors.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { shortenerAnswer } from '#lib/http/openapi/shapes/misc.ts';
import { expand, shortCode } from '#lib/shortener/shortener.ts';

/** `short` is required; its absence is answered in MMGIS's words ("not defined", docs/shortener.md). */
const body = { type: 'object', properties: { short: shortCode } } as const;

/** POST /api/shortener/expand {short} (JSON or form) → {status, message, body: {url}}; unknown: 404. */
export const handler = endpoint(
  { auth: 'viewer', schema: { body }, responses: ok(shortenerAnswer) },
  async ({ body, db }) => {
    if (body.short === undefined) throw badRequest("Body field 'short' is not defined.");
    const url = await expand(db.sql, body.short);
    return { status: 'success', message: 'Successfully expanded URL.', body: { url } };
  },
);
