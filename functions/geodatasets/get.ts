import { badRequest } from '#lib/errors.ts';
import { requireDataset } from '#lib/geodatasets/catalog.ts';
import { parseReadFilters, resolveReadFilters } from '#lib/geodatasets/read/filters.ts';
import { parseGeojsonOptions, streamFeatureCollection } from '#lib/geodatasets/read/geojson.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { streamedJson } from '#lib/http/largeResponse.ts';
import { featureCollection, largeAnswer } from '#lib/http/openapi/shapes/geodatasets.ts';
import { tileResponse } from '#lib/http/tileResponse.ts';
import { parseFilterParams } from '#lib/ogc/cql2/filter.ts';
import { CQL2_LIMITS } from '#lib/ogc/cql2/limits.ts';
import { withCql2 } from '#lib/ogc/cql2/readFilter.ts';

const query = {
  type: 'object',
  properties: {
    type: { type: 'string', enum: ['geojson', 'mvt'] },
    layer: { type: 'string' },
    x: { type: 'integer' },
    y: { type: 'integer' },
    z: { type: 'integer' },
    // OGC CQL2 (docs/cql2.md): cql2-text by default; cql2-json as text, or as an object in a POST body.
    filter: { type: 'string', maxLength: CQL2_LIMITS.maxLength },
    'filter-lang': { type: 'string', enum: ['cql2-text', 'cql2-json'] },
    'filter-crs': { type: 'string', maxLength: 100 },
  },
} as const;

const path = { type: 'object', properties: { layer: { type: 'string' } } } as const;

/**
 * GET /api/geodatasets/get[/{layer}] (and POST /api/geodatasets/get with the same parameters in a JSON
 * body): GeoJSON text built by the database, streamed (inline, or 303 to S3 above the inline limit), or a
 * vector tile (`type=mvt`).
 */
export const handler = endpoint(
  {
    auth: 'viewer',
    schema: { query, path },
    responses: {
      200: {
        description: 'GeoJSON (`type=geojson`, the default) or a vector tile (`type=mvt`).',
        content: {
          'application/json': featureCollection,
          'application/x-protobuf': { type: 'string', contentMediaType: 'application/x-protobuf' },
        },
      },
      204: { description: 'An empty tile (with ETag and Cache-Control).' },
      303: largeAnswer,
      304: { description: 'The tile has not changed (If-None-Match).' },
    },
  },
  async (input) => {
    const { db, event, headers } = input;
    const body =
      event.httpMethod === 'POST' && input.body && typeof input.body === 'object' ? input.body : {};
    const params: Record<string, any> = { ...(body as Record<string, unknown>), ...input.query };
    // jQuery's repeated form `_source[]=a&_source[]=b`: every value, not only the last.
    for (const key of ['_source[]', 'stats[]']) {
      const all = event.multiValueQueryStringParameters?.[key];
      if (all) params[key] = all;
    }
    const layer = input.path.layer ?? params.layer;
    if (layer === undefined || layer === '') throw badRequest(`Missing required query parameter 'layer'.`);
    // Without `type`: GeoJSON, as MMGIS answers (docs/geodatasets-read.md).
    params.type ??= 'geojson';
    if (params.type !== 'geojson' && params.type !== 'mvt')
      throw badRequest(`'type' must be geojson or mvt.`);
    const filters = parseReadFilters(params);
    // A cql2-json object in a POST body: as text, so the tile ETag (and any cache key) tells filters apart.
    if (params.filter !== null && typeof params.filter === 'object') {
      params['filter-lang'] ??= 'cql2-json';
      params.filter = JSON.stringify(params.filter);
    }
    const cql2 = parseFilterParams(params);
    const options = params.type === 'geojson' ? parseGeojsonOptions(params) : undefined;
    const ds = await requireDataset(db.sql, String(layer));
    if (!options) return tileResponse({ db, ds, query: params, headers });
    const features = streamFeatureCollection(
      db.sql,
      ds,
      await withCql2(db.sql, ds, await resolveReadFilters(db.sql, filters), cql2),
      options,
    );
    return streamedJson(features, 'read it in pages with limit and offset');
  },
);
