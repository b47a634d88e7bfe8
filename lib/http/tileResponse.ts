import { header } from '#lib/auth/principal.ts';
import type { Cql2Filter } from '#lib/cql2/filter.ts';
import type { Db } from '#lib/db/index.ts';
import type { Geodataset } from '#lib/geodatasets/catalog.ts';
import { readWithCql2 } from '#lib/geodatasets/read/cql2/readFilter.ts';
import {
  type ReadFilters,
  resolveReadFilters,
  sqlWhere,
  withReadErrors,
} from '#lib/geodatasets/read/filters.ts';
import { readTile } from '#lib/geodatasets/tiles/readTile.ts';
import { type TileKeyInput, tileEtag, tileHeaders } from '#lib/geodatasets/tiles/tileCache.ts';
import { type TileAddress, tileFilterBounds, tileSettings } from '#lib/geodatasets/tiles/tileParams.ts';
import { etagMatches } from './middleware/conditionalRequest.ts';
import { binary, type HttpResponse, respond } from './response.ts';

/**
 * The `type=mvt` answer of `GET /api/geodatasets/get[/{layer}]` for a dataset already looked up and a
 * request already parsed (docs/tiles.md): 304 when `If-None-Match` holds the current ETag (decided
 * before any dataset table is read); 204 with ETag and Cache-Control for an empty tile; otherwise 200
 * `application/x-protobuf`. The ETag keys on the declared tile parameters (`input`,
 * lib/geodatasets/tiles/tileCache.ts); `stats`, `limit`, `offset` and `limited` are not among them.
 */
export async function tileResponse(tile: {
  db: Db;
  ds: Geodataset;
  input: TileKeyInput;
  address: TileAddress;
  filters: ReadFilters;
  /** The CQL2 `filter` (docs/cql2.md), parsed. */
  cql2?: Cql2Filter;
  source: string[][] | undefined;
  headers: Record<string, string | undefined>;
}): Promise<HttpResponse> {
  const { db, ds, address, source } = tile;
  const settings = tileSettings();
  const etag = tileEtag(ds, tile.input, settings);
  const headers = tileHeaders(etag, settings);
  if (etagMatches(header(tile.headers, 'if-none-match'), etag)) return respond(304, undefined, { headers });
  const resolved = await resolveReadFilters(db.sql, tile.filters);
  const built = await readWithCql2(
    db.sql,
    ds,
    resolved,
    tile.cql2,
    (filters) => {
      const where = sqlWhere(db.sql, ds, filters, 't');
      return withReadErrors(() => readTile(db, ds, address, where, { settings, source }));
    },
    // Only the tile's features meet the filter (the GiST index on its box); noDuplicates spans the layer.
    { box: tile.filters.noDuplicates ? undefined : tileFilterBounds(address) },
  );
  if (built.n === 0 || built.bytes === 0) return respond(204, undefined, { headers });
  return binary(200, built.base64, 'application/x-protobuf', headers);
}
