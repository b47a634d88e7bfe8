import { parseSampleSize, readAggregations } from '#lib/geodatasets/read/aggregations.ts';
import { requireLayers } from '#lib/geodatasets/read/fieldTypes.ts';
import { parseReadFilters } from '#lib/geodatasets/read/filters.ts';
import { endpoint } from '#lib/http/endpoint.ts';

const query = { type: 'object', properties: { layers: { type: 'string' } }, required: ['layers'] } as const;

/** GET /api/geodatasets/bulk_aggregations: the aggregations body of each named layer (at most 100). */
export const handler = endpoint({ auth: 'viewer', schema: { query } }, async ({ query, db }) => {
  const filters = parseReadFilters(query);
  const limit = parseSampleSize(query);
  const datasets = await requireLayers(db.sql, query.layers);
  const body: Record<string, unknown> = {};
  for (const ds of datasets) body[ds.name] = await readAggregations(db.sql, ds, filters, limit);
  return { status: 'success', body };
});
