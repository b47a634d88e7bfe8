import { datasetName, recreateCsv, recreateHeader, tableFromObjects } from '#lib/datasets/csv.ts';
import { writeDataset } from '#lib/datasets/store.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { jsonField, jsonOr } from '#lib/http/jsonField.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { datasetWritten } from '#lib/http/openapi/shapes/misc.ts';

const body = {
  type: 'object',
  required: ['name', 'csv'],
  properties: {
    name: datasetName,
    header: jsonOr(recreateHeader, 1024 * 1024),
    csv: jsonOr(recreateCsv, 6 * 1024 * 1024),
    mode: { type: 'string', enum: ['full', 'append'], default: 'full' },
  },
} as const;

/** POST /api/datasets/recreate {name, header?, csv, mode: 'full'|'append'} (MMGIS's JSON form). */
export const handler = endpoint(
  { auth: 'admin', schema: { body }, responses: ok(datasetWritten) },
  async ({ body, db }) => {
    const table = tableFromObjects(
      jsonField(body.csv, 'csv', recreateCsv),
      body.header === undefined ? undefined : jsonField(body.header, 'header', recreateHeader),
    );
    const mode = body.mode === 'append' ? 'append' : 'replace';
    const r = await writeDataset(db, body.name, table, mode);
    return { status: 'success', message: `Stored ${r.added} rows in dataset '${body.name}'.`, body: r };
  },
);
