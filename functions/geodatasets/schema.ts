import { readSchema, requireLayers } from '#lib/geodatasets/read/fieldTypes.ts';
import { layersParam } from '#lib/geodatasets/read/readParams.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { schemaAnswer } from '#lib/http/openapi/shapes/geodatasets.ts';

const query = { type: 'object', properties: { layers: layersParam }, required: ['layers'] } as const;

/** GET /api/geodatasets/schema?layers=a,b: field names, types and layers, plus each layer's field_stats. */
export const handler = endpoint(
  { auth: 'viewer', schema: { query }, responses: ok(schemaAnswer) },
  async ({ query, db }) => readSchema(db.sql, await requireLayers(db.sql, query.layers)),
);
