import { parseSampleSize, readAggregations } from '#lib/geodatasets/read/aggregations.ts';
import { requireLayers } from '#lib/geodatasets/read/fieldTypes.ts';
import { parseReadFilters } from '#lib/geodatasets/read/filters.ts';
import { mergedMmgisAggregations } from '#lib/geodatasets/read/mmgisAggregations.ts';
import { layersParam, readFilterParams, sampleParam } from '#lib/geodatasets/read/readParams.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { bulkAggregationsAnswer } from '#lib/http/openapi/shapes/geodatasets.ts';

const query = {
  type: 'object',
  properties: { layers: layersParam, limit: sampleParam, ...readFilterParams },
  required: ['layers'],
} as const;

const options = { auth: 'viewer', schema: { query }, responses: ok(bulkAggregationsAnswer) } as const;

/** GET /api/geodatasets/bulk_aggregations: the aggregations body of each named layer (at most 100). */
export const handler = endpoint(options, async ({ query, db }) => {
  const filters = parseReadFilters(query);
  const limit = parseSampleSize(query.limit);
  const datasets = await requireLayers(db.sql, query.layers);
  const body: Record<string, unknown> = {};
  const samples: Record<string, unknown>[][] = [];
  for (const ds of datasets) {
    const read = await readAggregations(db.sql, ds, filters, limit);
    body[ds.name] = read.body;
    samples.push(read.samples);
  }
  return { status: 'success', aggregations: mergedMmgisAggregations(samples), body };
});
