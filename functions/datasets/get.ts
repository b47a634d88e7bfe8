import { parseQueries, runQueries } from '#lib/datasets/query.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { fieldsOf, jsonOrForm } from '#lib/http/formBody.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { datasetQueries } from '#lib/http/openapi/shapes/misc.ts';

/** POST /api/datasets/get {queries} (JSON or MMGIS's form post): one answer per query. */
export const handler = endpoint(
  { auth: 'viewer', ...jsonOrForm, responses: ok(datasetQueries) },
  async ({ body, db }) => ({
    status: 'success',
    body: await runQueries(db.sql, parseQueries(fieldsOf(body).queries)),
  }),
);
