import { notFound } from '#lib/errors.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { header } from '#lib/http/headers.ts';
import { respond } from '#lib/http/response.ts';
import { expand, redirectTarget, shortCode, siteOf } from '#lib/shortener/shortener.ts';

const path = { type: 'object', properties: { code: shortCode }, required: ['code'] } as const;

/** GET /api/shortener/{code}: 302 to the stored url on this site (a link a person can click). */
export const handler = endpoint(
  {
    auth: 'viewer',
    body: 'raw',
    schema: { path },
    responses: { 302: { description: 'Redirect to the stored URL on this site (Location).' } },
  },
  async ({ path, headers, db }) => {
    const target = redirectTarget(await expand(db.sql, path.code), siteOf(header(headers, 'host')));
    if (!target) throw notFound(`Short link '${path.code}' points to another site and is not followed.`);
    return respond(302, undefined, { headers: { Location: target, 'Cache-Control': 'no-store' } });
  },
);
