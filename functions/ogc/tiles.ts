import { endpoint } from '#lib/http/endpoint.ts';
import { requireCollection } from '#lib/ogc/collections.ts';
import { baseUrl } from '#lib/ogc/request.ts';
import { collectionPath, jsonFormatQuery, tilesetListAnswer } from '#lib/ogc/tiles/schemas.ts';
import { toTilesetList } from '#lib/ogc/tiles/tileset.ts';

/** GET /api/ogc/collections/{collectionId}/tiles: the collection's vector tilesets (docs/ogc-tiles.md). */
export const handler = endpoint(
  {
    auth: 'viewer',
    schema: { query: jsonFormatQuery, path: collectionPath },
    responses: { 200: { schema: tilesetListAnswer } },
    summary: "A collection's vector tilesets.",
  },
  async ({ db, event, path }) => {
    const { ds } = await requireCollection(db.sql, path.collectionId);
    return toTilesetList(baseUrl(event), ds);
  },
);
