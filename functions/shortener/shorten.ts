import { endpoint } from '#lib/http/endpoint.ts';
import { shortenerAnswer } from '#lib/http/openapi/shapes/misc.ts';
import { assertShortenableUrl, shorten } from '#lib/shortener/shortener.ts';

/** JSON or MMGIS's jQuery form post: an object of fields (form values arrive as strings). */
const body = { type: 'object' } as const;
const fields = (b: unknown) => b as Record<string, unknown>;

/** POST /api/shortener/shorten {url} (JSON or form) → {status, message, body: {url: <code>}}. */
export const handler = endpoint(
  { auth: 'viewer', body: 'json-or-form', schema: { body }, responses: { 200: { schema: shortenerAnswer } } },
  async ({ body, principal, db }) => {
    const url = assertShortenableUrl(fields(body).url);
    const code = await shorten(db.sql, url, principal.user?.username ?? null);
    return { status: 'success', message: 'Successfully shortened URL.', body: { url: code } };
  },
);
