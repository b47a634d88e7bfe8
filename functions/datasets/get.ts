import { assertMayReadDatasets } from '#lib/datasets/access.ts';
import { parseQueries, runQueries } from '#lib/datasets/query.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { fieldsOf, jsonOrForm } from '#lib/http/formBody.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { datasetQueries } from '#lib/http/openapi/shapes/misc.ts';

/**
 * POST /api/datasets/get {queries} (JSON or MMGIS's form post): one answer per query. Under `AUTH=local`
 * a dataset linked by missions the caller may not view is refused with 403 (docs/auth.md).
 */
export const handler = endpoint(
  { auth: 'viewer', ...jsonOrForm, responses: ok(datasetQueries) },
  async ({ body, db, principal }) => {
    const queries = parseQueries(fieldsOf(body).queries);
    await assertMayReadDatasets(db.sql, principal, queries);
    return { status: 'success', body: await runQueries(db.sql, queries) };
  },
);
