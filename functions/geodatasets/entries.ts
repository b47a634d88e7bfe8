import { listEntries } from '#lib/geodatasets/entries.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { entriesAnswer } from '#lib/http/openapi/shapes/geodatasets.ts';

/** POST (and GET) /api/geodatasets/entries: every geodataset; no token needed. */
export const handler = endpoint(
  { auth: 'public', body: 'raw', responses: ok(entriesAnswer) },
  async ({ db }) => ({
    status: 'success',
    body: { entries: await listEntries(db.sql) },
  }),
);
