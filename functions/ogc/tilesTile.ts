import { tileResponse } from '#lib/answers/tileResponse.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { requireCollection } from '#lib/ogc/collections.ts';
import { MVT } from '#lib/ogc/tiles/links.ts';
import { tileAnswers, tilePath, tileQuery } from '#lib/ogc/tiles/schemas.ts';
import { assertWithinLimits, parseTilePath, tileMatrixSetLimits } from '#lib/ogc/tiles/tileAddress.ts';
import { requireTileMatrixSet } from '#lib/ogc/tiles/tileMatrixSet.ts';

/**
 * GET /api/ogc/collections/{collectionId}/tiles/{tileMatrixSetId}/{tileMatrix}/{tileRow}/{tileCol}: one
 * vector tile (z/y/x), built by the tile code of `GET /api/geodatasets/get?type=mvt` with its ETag, 304
 * and Cache-Control (docs/tiles.md), as `application/vnd.mapbox-vector-tile`; 404 outside the tileset's
 * limits, which come from the catalog row's extent (docs/ogc-tiles.md).
 */
export const handler = endpoint(
  {
    auth: 'viewer',
    schema: { query: tileQuery, path: tilePath },
    responses: tileAnswers,
    summary: 'A vector tile.',
  },
  async ({ db, path, headers }) => {
    requireTileMatrixSet(path.tileMatrixSetId);
    const address = parseTilePath(path);
    const { ds, extents } = await requireCollection(db.sql, path.collectionId);
    assertWithinLimits(address, tileMatrixSetLimits(extents.bbox));
    const { x, y, z } = address;
    const res = await tileResponse({
      db,
      ds,
      input: { x, y, z },
      query: { filters: { filters: [], noDuplicates: false }, tile: { address } },
      headers,
    });
    if (res.headers?.['Content-Type']) res.headers['Content-Type'] = MVT;
    return res;
  },
);
