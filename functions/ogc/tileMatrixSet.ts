import { endpoint } from '#lib/http/endpoint.ts';
import { respond } from '#lib/http/response.ts';
import { baseUrl } from '#lib/ogc/request.ts';
import { jsonFormatQuery, tileMatrixSetAnswer, tileMatrixSetPath } from '#lib/ogc/tiles/schemas.ts';
import { requireTileMatrixSet, toWebMercatorQuad } from '#lib/ogc/tiles/tileMatrixSet.ts';

/**
 * GET /api/ogc/tileMatrixSets/{tileMatrixSetId}: the OGC 2D TMS 2.0 definition of WebMercatorQuad (404 for
 * any other id; docs/ogc-tiles.md).
 */
export const handler = endpoint(
  {
    auth: 'public',
    schema: { query: jsonFormatQuery, path: tileMatrixSetPath },
    responses: { 200: { schema: tileMatrixSetAnswer } },
    summary: 'A tile matrix set definition.',
  },
  async ({ event, path }) => {
    const id = requireTileMatrixSet(path.tileMatrixSetId);
    const body = toWebMercatorQuad(`${baseUrl(event)}/tileMatrixSets/${id}`);
    return respond(200, body, { headers: { 'Cache-Control': 'public, max-age=3600' } });
  },
);
