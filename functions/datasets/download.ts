import { datasetName, toCsv } from '#lib/datasets/csv.ts';
import { readTable, requireDataset, toObjects } from '#lib/datasets/store.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { datasetRows } from '#lib/http/openapi/shapes/misc.ts';
import { rawJson } from '#lib/http/response.ts';

const query = {
  type: 'object',
  properties: { layer: datasetName, format: { type: 'string', enum: ['json', 'csv'], default: 'json' } },
  required: ['layer'],
} as const;

const options = {
  auth: 'admin',
  body: 'raw',
  schema: { query },
  responses: {
    200: {
      description:
        "The rows as JSON objects, or with `format=csv` the table as CSV (cells that a spreadsheet would run as formulas prefixed with `'`: docs/datasets.md).",
      content: { 'application/json': datasetRows, 'text/csv': { type: 'string' } },
    },
  },
} as const;

/** GET /api/datasets/download?layer=N[&format=csv]: the rows as JSON objects, or the table as CSV. */
export const handler = endpoint(options, async ({ query, db }) => {
  const ds = await requireDataset(db.sql, query.layer);
  const table = await readTable(db.sql, ds);
  if (query.format === 'csv') {
    return rawJson(200, toCsv(table), {
      'Content-Type': 'text/csv; charset=utf-8',
      'Content-Disposition': `attachment; filename="${ds.name}.csv"`,
    });
  }
  return { status: 'success', body: toObjects(table) };
});
