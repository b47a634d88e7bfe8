import { endpoint } from '#lib/http/endpoint.ts';
import { fieldsOf } from '#lib/http/fields.ts';
import { assertShortenableUrl, shorten } from '#lib/shortener/shortener.ts';

/** POST /api/shortener/shorten {url} (JSON or form) → {status, message, body: {url: <code>}}. */
export const handler = endpoint(
  { auth: 'viewer', body: 'raw' },
  async ({ rawBody, headers, principal, db }) => {
    const url = assertShortenableUrl(fieldsOf(rawBody, headers).url);
    const code = await shorten(db.sql, url, principal.user?.username ?? null);
    return { status: 'success', message: 'Successfully shortened URL.', body: { url: code } };
  },
);
