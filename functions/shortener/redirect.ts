import { endpoint } from '#lib/http/endpoint.ts';
import { respond } from '#lib/http/response.ts';
import { expand } from '#lib/shortener/shortener.ts';

const path = { type: 'object', properties: { code: { type: 'string' } }, required: ['code'] } as const;

/** GET /api/shortener/{code}: 302 to the stored url (a link a person can click). */
export const handler = endpoint(
  {
    auth: 'viewer',
    body: 'raw',
    schema: { path },
    responses: { 302: { description: 'Redirect to the stored URL (Location).' } },
  },
  async ({ path, db }) => {
    const url = await expand(db.sql, path.code);
    return respond(302, undefined, { headers: { Location: url, 'Cache-Control': 'no-store' } });
  },
);
