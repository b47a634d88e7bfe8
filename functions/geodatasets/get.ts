import { geojsonResponse } from '#lib/answers/geojsonResponse.ts';
import { tileResponse } from '#lib/answers/tileResponse.ts';
import { requireDataset } from '#lib/geodatasets/catalog.ts';
import { getBody, getPath, getQuery } from '#lib/geodatasets/read/getParams.ts';
import { parseGetRequest } from '#lib/geodatasets/read/query.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import {
  exportRefused,
  exportStarted,
  featureCollection,
  largeAnswer,
} from '#lib/http/openapi/shapes/geodatasets.ts';

/**
 * GET /api/geodatasets/get[/{layer}] (and POST /api/geodatasets/get with the same parameters in a JSON
 * or form body; the query wins): GeoJSON text built by the database, streamed (inline, or 303 to S3
 * above the inline limit), or a vector tile (`type=mvt`). Every parameter is declared in
 * lib/geodatasets/read/getParams.ts.
 */
export const handler = endpoint(
  {
    auth: 'viewer',
    schema: { query: getQuery, body: getBody, path: getPath },
    responses: {
      200: {
        description: 'GeoJSON (`type=geojson`, the default) or a vector tile (`type=mvt`).',
        content: {
          'application/json': featureCollection,
          'application/x-protobuf': { type: 'string', contentMediaType: 'application/x-protobuf' },
        },
      },
      202: exportStarted,
      204: { description: 'An empty tile (with ETag and Cache-Control).' },
      303: largeAnswer,
      304: { description: 'The tile has not changed (If-None-Match).' },
      429: exportRefused,
    },
  },
  async ({ query, body, path, db, headers, event, principal }) => {
    const { layer, given, params, read } = parseGetRequest({ query, body, path });
    const ds = await requireDataset(db.sql, layer);
    if (read.tile) return tileResponse({ db, ds, input: params, query: read, headers });
    return geojsonResponse({ db, ds, query: read, given, params, event, principal });
  },
);
