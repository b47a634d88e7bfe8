import { listDatasetEntries } from '#lib/datasets/entries.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { datasetEntries } from '#lib/http/openapi/shapes/misc.ts';

/** POST (and GET) /api/datasets/entries: every dataset with rows, columns and occurrences. */
export const handler = endpoint(
  { auth: 'admin', body: 'raw', responses: ok(datasetEntries) },
  async ({ db }) => ({
    status: 'success',
    body: { entries: await listDatasetEntries(db.sql) },
  }),
);
