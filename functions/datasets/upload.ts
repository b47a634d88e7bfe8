import { datasetName, parseCsv } from '#lib/datasets/csv.ts';
import { writeDataset } from '#lib/datasets/store.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { csvBody, datasetWritten } from '#lib/http/openapi/shapes/misc.ts';

const query = {
  type: 'object',
  properties: {
    name: datasetName,
    mode: { type: 'string', enum: ['replace', 'append'], default: 'replace' },
  },
  required: ['name'],
} as const;

const options = {
  auth: 'admin',
  body: 'raw',
  rawBodyDoc: csvBody,
  schema: { query },
  responses: ok(datasetWritten),
} as const;

/** POST /api/datasets/upload?name=N[&mode=replace|append], body text/csv (RFC 4180). */
export const handler = endpoint(options, async ({ query, rawBody, db }) => {
  const table = parseCsv(rawBody ?? '');
  const r = await writeDataset(db, query.name, table, query.mode);
  return { status: 'success', message: `Stored ${r.added} rows in dataset '${query.name}'.`, body: r };
});
