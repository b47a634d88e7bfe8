import { header } from '#lib/auth/principal.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { fieldsOf, jsonOrForm } from '#lib/http/formBody.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { shortenerAnswer } from '#lib/http/openapi/shapes/misc.ts';
import { assertShortenableUrl, shorten, siteOf } from '#lib/shortener/shortener.ts';

/** POST /api/shortener/shorten {url} (JSON or form) → {status, message, body: {url: <code>}}. */
export const handler = endpoint(
  { auth: 'viewer', ...jsonOrForm, responses: ok(shortenerAnswer) },
  async ({ body, headers, principal, db }) => {
    const url = assertShortenableUrl(fieldsOf(body).url, siteOf(header(headers, 'host')));
    const code = await shorten(db.sql, url, principal.user?.username ?? null);
    return { status: 'success', message: 'Successfully shortened URL.', body: { url: code } };
  },
);
