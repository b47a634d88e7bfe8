import { requireDataset } from '#lib/geodatasets/catalog.ts';
import { fullDetailZoom } from '#lib/geodatasets/rank.ts';
import { readTileFields } from '#lib/geodatasets/read/fieldTypes.ts';
import { layerParam, readFilterParams, sourceParams } from '#lib/geodatasets/read/readParams.ts';
import { parseTileSource } from '#lib/geodatasets/read/tileParams.ts';
import { readBounds, toTileJson } from '#lib/geodatasets/tiles/tilejson.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { tileJsonAnswer } from '#lib/http/openapi/shapes/geodatasets.ts';
import { respond } from '#lib/http/response.ts';
import { publicBaseUrl } from '#lib/publicUrl.ts';

const path = { type: 'object', properties: { name: layerParam }, required: ['name'] } as const;
/** The filters and `_source` carried into the tiles URL (the tile endpoint's own, getParams.ts). */
const query = { type: 'object', properties: { ...readFilterParams, ...sourceParams } } as const;

/**
 * GET /api/geodatasets/tilejson/{name}: TileJSON 3.0.0 for the dataset's vector tiles (docs/tiles.md).
 * The tiles URL carries the dataset version, so this answer must not be cached for long.
 */
export const handler = endpoint(
  { auth: 'viewer', schema: { path, query }, responses: ok(tileJsonAnswer) },
  async ({ db, path, query, event }) => {
    const ds = await requireDataset(db.sql, path.name);
    const source = parseTileSource(query);
    const [bounds, fields, full] = await Promise.all([
      readBounds(db.sql, ds),
      readTileFields(db.sql, ds, source),
      fullDetailZoom(db.sql, ds),
    ]);
    const zooms = { minzoom: 0, maxzoom: 22 };
    const body = {
      status: 'success',
      ...toTileJson(ds, publicBaseUrl(event), query, bounds, fields, zooms, full),
    };
    return respond(200, body, { headers: { 'Cache-Control': 'no-cache' } });
  },
);
