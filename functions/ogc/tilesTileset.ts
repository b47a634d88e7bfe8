import { assertDatasetName, requireDataset } from '#lib/geodatasets/catalog.ts';
import { readTileFields } from '#lib/geodatasets/read/fieldTypes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { publicBaseUrl } from '#lib/http/headers.ts';
import { respond } from '#lib/http/response.ts';
import { readExtent } from '#lib/ogc/tiles/extent.ts';
import { jsonFormatQuery, tilesetAnswer, tilesetPath } from '#lib/ogc/tiles/schemas.ts';
import { requireTileMatrixSet } from '#lib/ogc/tiles/tileMatrixSet.ts';
import { toTileset } from '#lib/ogc/tiles/tileset.ts';

/**
 * GET /api/ogc/collections/{collectionId}/tiles/{tileMatrixSetId}: the tileset metadata (docs/ogc-tiles.md).
 * Its tile template carries the dataset version, so it is not cached for long (as TileJSON).
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
    const ds = await requireDataset(db.sql, assertDatasetName(path.collectionId, 'collectionId'));
    const [fields, bbox] = await Promise.all([readTileFields(db.sql, ds), readExtent(db.sql, ds)]);
    const body = toTileset(`${publicBaseUrl(event)}/api/ogc`, ds, fields, bbox);
    return respond(200, body, { headers: { 'Cache-Control': 'no-cache' } });
  },
);
