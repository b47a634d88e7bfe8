import { header } from '#lib/auth/principal.ts';
import type { Db } from '#lib/db/index.ts';
import { type Geodataset, requireDataset } from '#lib/geodatasets/catalog.ts';
import {
  type ReadFilters,
  resolveReadFilters,
  sqlWhere,
  withReadErrors,
} from '#lib/geodatasets/read/filters.ts';
import { forgetDataset, rememberDataset, rememberedDataset } from '#lib/geodatasets/rememberedDatasets.ts';
import { readTile } from '#lib/geodatasets/tiles/readTile.ts';
import { type TileKeyInput, tileEtag, tileHeaders } from '#lib/geodatasets/tiles/tileCache.ts';
import { type TileAddress, tileSettings } from '#lib/geodatasets/tiles/tileParams.ts';
import type { Cql2Filter } from '#lib/ogc/cql2/filter.ts';
import { withCql2 } from '#lib/ogc/cql2/readFilter.ts';
import { etagMatches } from './middleware/conditionalRequest.ts';
import { binary, type HttpResponse, respond } from './response.ts';

/**
 * The `type=mvt` answer of `GET /api/geodatasets/get[/{layer}]` for a dataset already looked up and a
 * request already parsed (docs/tiles.md): 304 when `If-None-Match` holds the current ETag (decided
 * before any dataset table is read); 204 with ETag and Cache-Control for an empty tile; otherwise 200
 * `application/x-protobuf`. The ETag keys on the declared tile parameters (`input`,
 * lib/geodatasets/tiles/tileCache.ts); `stats`, `limit`, `offset` and `limited` are not among them.
 */
export async function tileResponse(tile: TileRequest): Promise<HttpResponse> {
  return (await answerTile(tile, false)) as HttpResponse;
}

interface TileRequest {
  db: Db;
  ds: Geodataset;
  input: TileKeyInput;
  address: TileAddress;
  filters: ReadFilters;
  /** The CQL2 `filter` (docs/cql2.md), parsed. */
  cql2?: Cql2Filter;
  source: string[][] | undefined;
  headers: Record<string, string | undefined>;
}

/**
 * `tileResponse` for the dataset named `layer`, in one statement when it can: a request without
 * `If-None-Match`, on the server's encoder, starts from the catalog row this process last read for that
 * name (lib/geodatasets/rememberedDatasets.ts) instead of reading it first. The tile statement reads the
 * row's version again in its own snapshot; if it moved (a write since), or the remembered table is gone,
 * the answer is built again from the catalog as read now. A revalidation always reads the catalog first:
 * its 304 is decided before any dataset table is read.
 */
export async function namedTileResponse(
  tile: Omit<TileRequest, 'ds'> & { layer: string },
): Promise<HttpResponse> {
  const { db, layer } = tile;
  const guess = header(tile.headers, 'if-none-match') ? undefined : rememberedDataset(db, layer);
  if (guess && (await db.capabilities()).asMvt) {
    try {
      const answer = await answerTile({ ...tile, ds: guess }, true);
      if (answer) return answer;
    } catch (e) {
      if (!isUndefinedTable(e)) throw e;
    }
    forgetDataset(db, layer);
  }
  const ds = await requireDataset(db.sql, layer);
  rememberDataset(db, ds);
  return (await answerTile({ ...tile, ds }, false)) as HttpResponse;
}

/** PostgreSQL's undefined_table (42P01), as postgres.js and the Data API driver report it. */
function isUndefinedTable(e: unknown): boolean {
  const err = e as { code?: unknown; message?: unknown };
  return err?.code === '42P01' || /relation "[^"]+" does not exist/.test(String(err?.message ?? ''));
}

/** The answer; with `checkVersion`, null when the dataset's version in the tile statement is not `ds.version`. */
async function answerTile(tile: TileRequest, checkVersion: boolean): Promise<HttpResponse | null> {
  const { db, ds, address, source } = tile;
  const settings = tileSettings();
  const etag = tileEtag(ds, tile.input, settings);
  const headers = tileHeaders(etag, settings);
  if (etagMatches(header(tile.headers, 'if-none-match'), etag)) return respond(304, undefined, { headers });
  const filters = await withCql2(db.sql, ds, await resolveReadFilters(db.sql, tile.filters), tile.cql2);
  const where = sqlWhere(db.sql, ds, filters, 't');
  const built = await withReadErrors(() => readTile(db, ds, address, where, { settings, source }));
  if (checkVersion && built.version !== ds.version) return null;
  if (built.n === 0 || built.tile.length === 0) return respond(204, undefined, { headers });
  return binary(200, built.tile, 'application/x-protobuf', headers);
}
