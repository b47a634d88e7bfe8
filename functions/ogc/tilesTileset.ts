import { endpoint } from '#lib/http/endpoint.ts';
import { respond } from '#lib/http/response.ts';
import { requireCollection } from '#lib/ogc/collections.ts';
import { baseUrl } from '#lib/ogc/request.ts';
import { jsonFormatQuery, tilesetAnswer, tilesetPath } from '#lib/ogc/tiles/schemas.ts';
import { requireTileMatrixSet } from '#lib/ogc/tiles/tileMatrixSet.ts';
import { toTileset } from '#lib/ogc/tiles/tileset.ts';

/**
 * GET /api/ogc/collections/{collectionId}/tiles/{tileMatrixSetId}: the tileset metadata (docs/ogc-tiles.md),
 * from the catalog row alone (its extent and property types). Its tile template carries the dataset
 * version, so it is not cached for long (as TileJSON).
 */
export const handler = endpoint(
  {
    auth: 'viewer',
    schema: { query: jsonFormatQuery, path: tilesetPath },
    responses: { 200: { schema: tilesetAnswer } },
    summary: "A collection's vector tileset metadata.",
  },
  async ({ db, event, path }) => {
    requireTileMatrixSet(path.tileMatrixSetId);
    const { ds, extents } = await requireCollection(db.sql, path.collectionId);
    const body = toTileset(baseUrl(event), ds, extents.propertyTypes, extents.bbox);
    return respond(200, body, { headers: { 'Cache-Control': 'no-cache' } });
  },
);
