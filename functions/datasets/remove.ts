import { datasetName } from '#lib/datasets/csv.ts';
import { removeDataset } from '#lib/datasets/store.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok, successMessage } from '#lib/http/openapi/describe.ts';

const path = { type: 'object', properties: { name: datasetName }, required: ['name'] } as const;

/** DELETE /api/datasets/remove/{name}; unknown: 404. */
export const handler = endpoint(
  { auth: 'admin', body: 'raw', schema: { path }, responses: ok(successMessage()) },
  async ({ path, db }) => {
    await removeDataset(db.sql, path.name);
    return { status: 'success', message: `Removed dataset '${path.name}'.` };
  },
);
