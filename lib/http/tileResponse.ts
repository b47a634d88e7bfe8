import { header } from '#lib/auth/principal.ts';
import type { Db } from '#lib/db/index.ts';
import type { Geodataset } from '#lib/geodatasets/catalog.ts';
import {
  parseReadFilters,
  resolveReadFilters,
  sqlWhere,
  withReadErrors,
} from '#lib/geodatasets/read/filters.ts';
import { readTile } from '#lib/geodatasets/tiles/readTile.ts';
import {
  parseTileAddress,
  parseTileSource,
  tileEtag,
  tileHeaders,
  tileSettings,
} from '#lib/geodatasets/tiles/tileParams.ts';
import { parseFilterParams } from '#lib/ogc/cql2/filter.ts';
import { withCql2 } from '#lib/ogc/cql2/readFilter.ts';
import { etagMatches } from './middleware/conditionalRequest.ts';
import { binary, type HttpResponse, respond } from './response.ts';

/**
 * The `type=mvt` answer of `GET /api/geodatasets/get[/{layer}]` for a dataset already looked up
 * (docs/tiles.md): 400 for a bad tile address or filter; 304 when `If-None-Match` holds the current
 * ETag (decided before any dataset table is read); 204 with ETag and Cache-Control for an empty tile;
 * otherwise 200 `application/x-protobuf`. `stats`, `limit`, `offset` and `limited` are ignored.
 */
export async function tileResponse(input: {
  db: Db;
  ds: Geodataset;
  query: Record<string, any>;
  headers: Record<string, string | undefined>;
}): Promise<HttpResponse> {
  const { db, ds, query } = input;
  const address = parseTileAddress(query);
  const parsed = parseReadFilters(query);
  const cql2 = parseFilterParams(query);
  const source = parseTileSource(query);
  const settings = tileSettings();
  const etag = tileEtag(ds, query, settings);
  const headers = tileHeaders(etag, settings);
  if (etagMatches(header(input.headers, 'if-none-match'), etag)) return respond(304, undefined, { headers });
  const filters = await withCql2(db.sql, ds, await resolveReadFilters(db.sql, parsed), cql2);
  const where = sqlWhere(db.sql, ds, filters, 't');
  const tile = await withReadErrors(() => readTile(db, ds, address, where, { settings, source }));
  if (tile.n === 0 || tile.tile.length === 0) return respond(204, undefined, { headers });
  return binary(200, tile.tile, 'application/x-protobuf', headers);
}
