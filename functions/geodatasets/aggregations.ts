import { requireDataset } from '#lib/geodatasets/catalog.ts';
import { parseSampleSize, readAggregations } from '#lib/geodatasets/read/aggregations.ts';
import { parseReadFilters } from '#lib/geodatasets/read/filters.ts';
import { mmgisAggregations } from '#lib/geodatasets/read/mmgisAggregations.ts';
import { layerParam, readFilterParams, sampleParam } from '#lib/geodatasets/read/readParams.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { aggregationsAnswer } from '#lib/http/openapi/shapes/geodatasets.ts';

const query = {
  type: 'object',
  properties: { layer: layerParam, limit: sampleParam, ...readFilterParams },
  required: ['layer'],
} as const;

const options = { auth: 'viewer', schema: { query }, responses: ok(aggregationsAnswer) } as const;

/** GET /api/geodatasets/aggregations: histograms and value counts of a random sample of one layer. */
export const handler = endpoint(options, async ({ query, db }) => {
  const filters = parseReadFilters(query);
  const limit = parseSampleSize(query.limit);
  const ds = await requireDataset(db.sql, query.layer);
  const { body, samples } = await readAggregations(db.sql, ds, filters, limit);
  return { status: 'success', aggregations: mmgisAggregations(samples), body };
});
