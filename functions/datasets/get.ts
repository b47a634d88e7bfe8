import { parseQueries, runQueries } from '#lib/datasets/query.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { fieldsOf } from '#lib/http/fields.ts';

/** POST /api/datasets/get {queries} (JSON or MMGIS's form post): one answer per query. */
export const handler = endpoint({ auth: 'viewer', body: 'raw' }, async ({ rawBody, headers, db }) => ({
  status: 'success',
  body: await runQueries(db.sql, parseQueries(fieldsOf(rawBody, headers).queries)),
}));
