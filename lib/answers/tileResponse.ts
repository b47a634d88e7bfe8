import type { Db } from '#lib/db/index.ts';
import type { Geodataset } from '#lib/geodatasets/catalog.ts';
import { sqlWhere, withReadErrors } from '#lib/geodatasets/read/filters.ts';
import { runRead, type TileQuery } from '#lib/geodatasets/read/query.ts';
import { tileSettings } from '#lib/geodatasets/read/tileParams.ts';
import { readTile } from '#lib/geodatasets/tiles/readTile.ts';
import { type TileKeyInput, tileEtag, tileHeaders } from '#lib/geodatasets/tiles/tileCache.ts';
import { header } from '#lib/http/headers.ts';
import { etagMatches } from '#lib/http/middleware/conditionalRequest.ts';
import { binary, type HttpResponse, respond } from '#lib/http/response.ts';

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
  /** The tile's read (lib/geodatasets/read/query.ts): its address, `_source`, filters and CQL2 filter. */
  query: TileQuery;
  headers: Record<string, string | undefined>;
}): Promise<HttpResponse> {
  const { db, ds, query } = tile;
  const { address, source } = query.tile;
  const settings = tileSettings();
  const etag = tileEtag(ds, tile.input, settings);
  const headers = tileHeaders(etag, settings);
  if (etagMatches(header(tile.headers, 'if-none-match'), etag)) return respond(304, undefined, { headers });
  const built = await runRead(db.sql, ds, query, (filters) => {
    const where = sqlWhere(db.sql, ds, filters, 't');
    return withReadErrors(() => readTile(db, ds, address, where, { settings, source }));
  });
  if (built.n === 0 || built.bytes === 0) return respond(204, undefined, { headers });
  return binary(200, built.base64, 'application/x-protobuf', headers);
}
