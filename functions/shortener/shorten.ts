import { endpoint } from '#lib/http/endpoint.ts';
import { header } from '#lib/http/headers.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { shortenerAnswer } from '#lib/http/openapi/shapes/misc.ts';
import { assertShortenableUrl, shorten, shortenableUrl, siteOf } from '#lib/shortener/shortener.ts';

const body = { type: 'object', required: ['url'], properties: { url: shortenableUrl } } as const;

/** POST /api/shortener/shorten {url} (JSON or form) → {status, message, body: {url: <code>}}. */
export const handler = endpoint(
  { auth: 'viewer', schema: { body }, responses: ok(shortenerAnswer) },
  async ({ body, headers, principal, db }) => {
    const url = assertShortenableUrl(body.url, siteOf(header(headers, 'host')));
    const code = await shorten(db.sql, url, principal.user?.username ?? null);
    return { status: 'success', message: 'Successfully shortened URL.', body: { url: code } };
  },
);
