import { listEntries } from '#lib/geodatasets/entries.ts';
import { endpoint } from '#lib/http/endpoint.ts';

/** POST (and GET) /api/geodatasets/entries: every geodataset; no token needed. */
export const handler = endpoint({ auth: 'public', body: 'raw' }, async ({ db }) => ({
  status: 'success',
  body: { entries: await listEntries(db.sql) },
}));
