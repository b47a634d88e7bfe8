import type { Fragment } from '#lib/db/fragments.ts';
import type { Queryable } from '#lib/db/index.ts';
import { badRequest } from '#lib/errors.ts';
import { type Geodataset, sqlTable } from '#lib/geodatasets/catalog.ts';
import {
  type PropertyFilter,
  type ReadFilters,
  sqlProps,
  sqlWhere,
  withReadErrors,
} from '#lib/geodatasets/read/filters.ts';
import { type CollectionSource, ITEMS_PARAMETERS, type QueryableType, queryables } from './collections.ts';
import { type Crs, parseBbox, parseCrs } from './crs.ts';
import { parseDatetime } from './datetime.ts';

/** The items' paging and answer options besides the read filters. */
export interface ItemsPage {
  limit: number;
  /** Keyset cursor: only features with a higher id (the `next` link). */
  after?: number;
  /** Keyset cursor: only features with a lower id, the last `limit` of them (the `prev` link). */
  before?: number;
  /** Features skipped first (clients that page by offset); the links it gives page by key. */
  offset?: number;
  crs: Crs;
}

export const DEFAULT_LIMIT = 10;
export const MAX_LIMIT = 10_000;

/**
 * The read filters of an items request (docs/ogc.md, "Items"): `bbox` in `bbox-crs`, `datetime` on the
 * start_time/end_time columns, and `name=value` for each queryable (a number queryable compares numbers,
 * others the value's text). Any other parameter not in `known` is a 400 naming it, as Part 1 requires.
 * The CQL2 `filter` is added to the returned filters by its own module (docs/cql2.md).
 */
export function parseItemsFilters(
  query: Record<string, unknown>,
  src: CollectionSource,
  known: ReadonlySet<string> = ITEMS_PARAMETERS,
): ReadFilters {
  const f: ReadFilters = { filters: [], noDuplicates: false };
  if (typeof query.bbox === 'string')
    f.bbox = parseBbox(query.bbox, parseCrs(query['bbox-crs'] as string, 'bbox-crs'));
  else if (query['bbox-crs'] !== undefined) parseCrs(query['bbox-crs'] as string, 'bbox-crs');
  if (typeof query.datetime === 'string') {
    const w = parseDatetime(query.datetime);
    if (w.start || w.end) f.time = { start: w.start, end: w.end };
  }
  const q = queryables(src.extents);
  for (const [name, raw] of Object.entries(query)) {
    if (known.has(name) || raw === undefined) continue;
    const type = q.get(name);
    if (!type) {
      throw badRequest(
        `Unknown query parameter '${name.slice(0, 80)}': not an items parameter nor a queryable of '${src.ds.name}' (see its queryables in the API document).`,
      );
    }
    f.filters.push(propertyFilter(name, String(raw), type));
  }
  return f;
}

function propertyFilter(name: string, value: string, type: QueryableType): PropertyFilter {
  if (type === 'number') {
    const n = value.trim() === '' ? Number.NaN : Number(value);
    if (!Number.isFinite(n))
      throw badRequest(
        `'${name}' is a number property: ${JSON.stringify(value).slice(0, 60)} is not a number.`,
      );
    return { path: [name], op: '=', type: 'number', values: [n] };
  }
  return { path: [name], op: '=', type: 'string', values: [value] };
}

/** The paging options: `limit` (1..10000, default 10), `after`/`before` (not both), `crs`. */
export function parseItemsPage(query: Record<string, unknown>): ItemsPage {
  const limit = query.limit === undefined ? DEFAULT_LIMIT : Number(query.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw badRequest(`'limit' must be an integer from 1 to ${MAX_LIMIT}.`);
  }
  if (query.after !== undefined && query.before !== undefined)
    throw badRequest(`'after' and 'before' cannot both be given.`);
  if (query.offset !== undefined && query.before !== undefined)
    throw badRequest(`'offset' and 'before' cannot both be given.`);
  return {
    limit,
    after: query.after === undefined ? undefined : Number(query.after),
    before: query.before === undefined ? undefined : Number(query.before),
    offset: query.offset === undefined ? undefined : Number(query.offset),
    crs: parseCrs(query.crs as string | undefined, 'crs'),
  };
}

/** The geometry in the answer's CRS: as stored (CRS84), axes swapped (EPSG:4326), or projected. */
export function sqlGeometryIn(sql: Queryable, geom: Fragment, crs: Crs): Fragment {
  if (crs.srid === 3857) {
    // Web Mercator ends at ±85.06°: what lies beyond is clipped to its domain rather than failing.
    return sql`ST_Transform(ST_Intersection(${geom}, ST_MakeEnvelope(-180, -85.06, 180, 85.06, 4326)), 3857)`;
  }
  return crs.latFirst ? sql`ST_FlipCoordinates(${geom})` : geom;
}

/** One feature's GeoJSON text (`f`), built by the database, with its id (`id`). */
function sqlFeatureText(sql: Queryable, ds: Geodataset, crs: Crs): Fragment {
  const geom = sqlGeometryIn(sql, sql`t.geom`, crs);
  return sql`'{"type":"Feature","id":' || t.id || ',"geometry":' || coalesce(ST_AsGeoJSON(${geom}), 'null')
    || ',"properties":' || (${sqlProps(sql, ds, 't')})::text || '}'`;
}

/**
 * The features of one page as rows `(id, f)` in id order: with `after` (or no cursor) the first `limit + 1`
 * above it (the extra row only tells that a next page exists); with `before` the last `limit` below it.
 * Keyset paging on the primary key: each page is an index range, whatever its depth, and a feature
 * appended meanwhile (always a higher id: writers of a dataset are serialized) never shifts a page.
 */
export function itemsQuery(sql: Queryable, ds: Geodataset, f: ReadFilters, page: ItemsPage): Fragment {
  const table = sqlTable(sql, ds);
  const where = sqlWhere(sql, ds, f, 't');
  const text = sqlFeatureText(sql, ds, page.crs);
  if (page.before !== undefined) {
    return sql`select q.id, q.f from (
        select t.id, ${text} as f from ${table} t where ${where} and t.id < ${page.before}::bigint
        order by t.id desc limit ${page.limit}::int) q
      order by q.id`;
  }
  const after = page.after ?? 0;
  return sql`select t.id, ${text} as f from ${table} t where ${where} and t.id > ${after}::bigint
    order by t.id offset ${page.offset ?? 0}::bigint limit ${page.limit + 1}::int`;
}

/**
 * How many features match: the catalog's count when nothing filters (any filter a later module adds to
 * `ReadFilters`, such as CQL2's, counts as filtering), else a count with the page's filters.
 */
export async function numberMatched(sql: Queryable, ds: Geodataset, f: ReadFilters): Promise<number> {
  const { filters, noDuplicates, ...others } = f;
  const filtered = filters.length > 0 || noDuplicates || Object.values(others).some((v) => v !== undefined);
  if (!filtered) return ds.numFeatures;
  const [row] = await withReadErrors(
    () => sql`select count(*)::bigint as n from ${sqlTable(sql, ds)} t where ${sqlWhere(sql, ds, f, 't')}`,
  );
  return Number(row.n);
}

/** Whether a feature matching `f` lies beyond `id` (above it: `next`; below: `prev`). */
export async function existsBeyond(
  sql: Queryable,
  ds: Geodataset,
  f: ReadFilters,
  id: number,
  side: 'above' | 'below',
): Promise<boolean> {
  const beyond = side === 'above' ? sql`t.id > ${id}::bigint` : sql`t.id < ${id}::bigint`;
  const [row] = await withReadErrors(
    () =>
      sql`select exists(select 1 from ${sqlTable(sql, ds)} t where ${sqlWhere(sql, ds, f, 't')} and ${beyond}) as e`,
  );
  return !!row.e;
}

/** One feature's GeoJSON text in `crs`, or undefined. */
export async function readFeature(
  sql: Queryable,
  ds: Geodataset,
  id: number,
  crs: Crs,
): Promise<string | undefined> {
  const [row] = await withReadErrors(
    () =>
      sql`select ${sqlFeatureText(sql, ds, crs)} as f from ${sqlTable(sql, ds)} t where t.id = ${id}::bigint`,
  );
  return row?.f as string | undefined;
}
