import { parseQueries, runQueries } from '#lib/datasets/query.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { datasetQueries } from '#lib/http/openapi/shapes/misc.ts';

/** JSON or MMGIS's jQuery form post: an object of fields (form values arrive as strings). */
const body = { type: 'object' } as const;
const fields = (b: unknown) => b as Record<string, unknown>;

/** POST /api/datasets/get {queries} (JSON or MMGIS's form post): one answer per query. */
export const handler = endpoint(
  { auth: 'viewer', body: 'json-or-form', schema: { body }, responses: { 200: { schema: datasetQueries } } },
  async ({ body, db }) => ({
    status: 'success',
    body: await runQueries(db.sql, parseQueries(fields(body).queries)),
  }),
);
