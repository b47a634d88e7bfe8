import type { FromSchema } from 'json-schema-to-ts';
import { type Cql2Filter, parseFilterParams } from '#lib/cql2/filter.ts';
import type { Queryable } from '#lib/db/index.ts';
import { badRequest } from '#lib/errors.ts';
import type { Geodataset } from '../catalog.ts';
import { type ReadShape, readWithCql2 } from './cql2/readFilter.ts';
import { parseReadFilters, type ReadFilters, resolveReadFilters } from './filters.ts';
import { type GeojsonOptions, parseGeojsonOptions, readsInSpans } from './geojson.ts';
import type { getBody, getPath, getQuery } from './getParams.ts';
import { parseTileAddress, parseTileSource, type TileAddress, tileFilterBounds } from './tileParams.ts';

/**
 * One read of a geodataset, whatever answers it (docs/geodatasets-read.md): the request's parameters
 * (filters, time, bbox, CQL2, paging, `_source`, tile address) parsed into one value, `ReadQuery`, and the
 * one function that runs a read with it, `runRead`. GeoJSON reads, tiles, export jobs and OGC items each
 * call `runRead`; what they read with the filters it hands them is theirs.
 */

/** A vector tile's read: its address and `_source` paths (undefined: every top-level property). */
export interface TileRead {
  address: TileAddress;
  source?: string[][];
}

/** A read as one value: its filters and CQL2 filter, and how it answers (GeoJSON options or a tile). */
export interface ReadQuery {
  filters: ReadFilters;
  /** The CQL2 `filter` (docs/cql2.md), parsed; compiled against the dataset by `runRead`. */
  cql2?: Cql2Filter;
  /** A GeoJSON read (or its export): paging, `_source`, `stats`. */
  geojson?: GeojsonOptions;
  /** A vector tile (`type=mvt`). */
  tile?: TileRead;
}

export type GeojsonQuery = ReadQuery & { geojson: GeojsonOptions; tile?: undefined };
export type TileQuery = ReadQuery & { tile: TileRead; geojson?: undefined };

/** The declared parameters of `GET /get` (getParams.ts), query over body. */
export type GetInput = FromSchema<typeof getQuery>;

/** A GeoJSON read of `GET /get`'s parameters (and of an export job's, which are the same). */
export function parseGeojsonQuery(params: GetInput): GeojsonQuery {
  const filters = parseReadFilters(params);
  const cql2 = parseFilterParams(params);
  return { filters, cql2, geojson: parseGeojsonOptions(params) };
}

/** A vector tile read of `GET /get`'s parameters (`type=mvt`): 400 naming a missing or bad `z`, `x`, `y`. */
export function parseTileQuery(params: GetInput): TileQuery {
  const filters = parseReadFilters(params);
  const cql2 = parseFilterParams(params);
  return { filters, cql2, tile: { address: parseTileAddress(params), source: parseTileSource(params) } };
}

/** `GET /api/geodatasets/get[/{layer}]` as one value: the layer, the parameters and the read. */
export interface GetRequest {
  layer: string;
  /** The declared parameters as given (query over body): the next page's link keeps them. */
  given: GetInput;
  /** The same with a cql2-json object as text: what the tile ETag and an export's key read. */
  params: GetInput;
  read: GeojsonQuery | TileQuery;
}

/**
 * Parses `GET /get` (and `POST /get`, the query winning over the body): 400 without a layer, or naming a
 * bad parameter. Without `type`: GeoJSON, as MMGIS answers (docs/geodatasets-read.md).
 */
export function parseGetRequest(parts: {
  query: FromSchema<typeof getQuery>;
  body: FromSchema<typeof getBody>;
  path: FromSchema<typeof getPath>;
}): GetRequest {
  const given = { ...parts.body, ...parts.query };
  const params = { ...given };
  const layer = parts.path.layer || params.layer;
  if (!layer) throw badRequest(`Missing required query parameter 'layer'.`);
  // A cql2-json object in a body: as text, so the tile ETag (and any cache key) tells filters apart.
  if (params.filter !== null && typeof params.filter === 'object') {
    params['filter-lang'] ??= 'cql2-json';
    params.filter = JSON.stringify(params.filter);
  }
  const read = params.type === 'mvt' ? parseTileQuery(params) : parseGeojsonQuery(params);
  return { layer, given, params, read };
}

/** How the read runs its statements, for the cost estimate: a tile's box, or a GeoJSON read's key spans. */
function readShape(q: ReadQuery): ReadShape {
  // Only the tile's features meet the filter (the GiST index on its box); noDuplicates spans the layer.
  if (q.tile) return { box: q.filters.noDuplicates ? undefined : tileFilterBounds(q.tile.address) };
  if (q.geojson) return { chunked: readsInSpans(q.filters, q.geojson) };
  return {};
}

/**
 * Runs `read` with the filters of `q` for dataset `ds`: a custom time `format`'s times parsed by the
 * database (400 when they do not parse), the CQL2 filter compiled against the dataset and its cost
 * estimated (docs/cql2.md, "Cost": 400 naming `filter` above the limit), and a costly read run in its
 * process's costly-read lane for the whole of `read` (it returns once the answer is built or sent).
 */
export async function runRead<T>(
  sql: Queryable,
  ds: Geodataset,
  q: ReadQuery,
  read: (filters: ReadFilters) => Promise<T>,
): Promise<T> {
  const resolved = await resolveReadFilters(sql, q.filters);
  return readWithCql2(sql, ds, resolved, q.cql2, read, readShape(q));
}
