import { endpoint } from '#lib/http/endpoint.ts';
import { respond } from '#lib/http/response.ts';
import { baseUrl } from '#lib/ogc/request.ts';
import { jsonFormatQuery, tileMatrixSetsAnswer } from '#lib/ogc/tiles/schemas.ts';
import { toTileMatrixSetList } from '#lib/ogc/tiles/tileMatrixSet.ts';

/** GET /api/ogc/tileMatrixSets: the tile matrix sets of the OGC API – Tiles (docs/ogc-tiles.md). */
export const handler = endpoint(
  {
    auth: 'public',
    schema: { query: jsonFormatQuery },
    responses: { 200: { schema: tileMatrixSetsAnswer } },
    summary: 'The tile matrix sets (WebMercatorQuad).',
  },
  async ({ event }) => {
    const body = toTileMatrixSetList(baseUrl(event));
    return respond(200, body, { headers: { 'Cache-Control': 'public, max-age=3600' } });
  },
);
