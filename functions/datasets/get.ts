import { assertMayReadDatasets } from '#lib/datasets/access.ts';
import { type DatasetQuery, datasetQueries, MAX_QUERIES, runQueries } from '#lib/datasets/query.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { jsonField, jsonOr } from '#lib/http/jsonField.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { datasetQueries as answers } from '#lib/http/openapi/shapes/misc.ts';

const body = {
  type: 'object',
  required: ['queries'],
  properties: { queries: jsonOr(datasetQueries, MAX_QUERIES * 4096) },
} as const;

/**
 * POST /api/datasets/get {queries} (JSON, or MMGIS's form post with `queries` as JSON text): one answer
 * per query. Under `AUTH=local` a dataset linked by missions the caller may not view is refused with 403
 * (docs/auth.md).
 */
export const handler = endpoint(
  { auth: 'viewer', schema: { body }, responses: ok(answers) },
  async ({ body, db, principal }) => {
    const queries = jsonField<DatasetQuery[]>(body.queries, 'queries', datasetQueries);
    await assertMayReadDatasets(db.sql, principal, queries);
    return { status: 'success', body: await runQueries(db.sql, queries) };
  },
);
