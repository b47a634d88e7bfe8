import { parseFilterParams } from '#lib/cql2/filter.ts';
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
import type { ReadQuery } from '#lib/geodatasets/read/query.ts';
import type { UntimedMatchingWindow } from '#lib/geodatasets/read/timeSql.ts';
import { type CollectionSource, ITEMS_PARAMETERS, type QueryableType, queryables } from './collections.ts';
import { antimeridianHalves, type Crs, parseBbox, parseCrs } from './crs.ts';
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
 * The CQL2 `filter` is parsed beside them (`parseItemsQuery`) and compiled by `runRead` (docs/cql2.md).
 */
export function parseItemsFilters(
  query: Record<string, unknown>,
  src: CollectionSource,
  known: ReadonlySet<string> = ITEMS_PARAMETERS,
): ReadFilters {
  const f: ReadFilters = { filters: [], noDuplicates: false };
  if (typeof query.bbox === 'string') {
    const box = parseBbox(query.bbox, parseCrs(query['bbox-crs'] as string, 'bbox-crs'));
    // Across the antimeridian: the features meeting either half (the read's `intersect` geometry).
    const halves = antimeridianHalves(box);
    if (halves) f.intersect = halves;
    else f.bbox = box;
  } else if (query['bbox-crs'] !== undefined) parseCrs(query['bbox-crs'] as string, 'bbox-crs');
  if (typeof query.datetime === 'string') {
    const w = parseDatetime(query.datetime);
    // Features with no time match too (Part 1, /req/core/fc-time-response C; docs/ogc.md, "datetime").
    const window: UntimedMatchingWindow = { start: w.start, end: w.end, untimed: 'match' };
    if (w.start || w.end) f.time = window;
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

/**
 * The read of an items request (lib/geodatasets/read/query.ts): its CQL2 `filter` (docs/cql2.md) and its
 * read filters (`parseItemsFilters`), parsed in that order.
 */
export function parseItemsQuery(query: Record<string, unknown>, src: CollectionSource): ReadQuery {
  const cql2 = parseFilterParams(query);
  return { filters: parseItemsFilters(query, src), cql2 };
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

/**
 * The paging options: `limit` (an integer from 1, default 10; above 10,000 it is 10,000, as Part 1's
 * `/req/core/fc-limit-response-1` C requires: not an error), `after`/`before` (not both), `crs`.
 */
export function parseItemsPage(query: Record<string, unknown>): ItemsPage {
  const asked = query.limit === undefined ? DEFAULT_LIMIT : Number(query.limit);
  if (!Number.isInteger(asked) || asked < 1) throw badRequest(`'limit' must be an integer from 1.`);
  const limit = Math.min(asked, MAX_LIMIT);
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

/** Features per row of an items page's statement (each row one `string_agg` of their texts). */
export const CHUNK_FEATURES = 1000;

/**
 * Rows of an items page's statement held at a time: a page of up to 2,000 features is read at once; a
 * larger one with a cursor of this many rows, so the function holds at most 2,000 features' text.
 */
export const CHUNKS_PER_FETCH = 2;

/** One row of `itemsQuery`: the texts of up to `CHUNK_FEATURES` features, and the page's facts. */
export interface ItemsChunk {
  /** The features' texts joined by commas (null when the page is empty: then the only row). */
  f: string | null;
  /** The chunk's number of features. */
  n: number;
  /** The chunk's first and last ids (null when the page is empty). */
  first: string | null;
  last: string | null;
  /** A matching feature lies above the page (the `next` link). */
  more: boolean;
  /** A matching feature lies below the page (the `prev` link; only asked for pages with a cursor). */
  earlier: boolean;
}

/**
 * The statement of one items page, in id order, as rows of `CHUNK_FEATURES` features each (`ItemsChunk`),
 * at least one (an empty page is one row with no text). With `after` (or no cursor) the page is the first
 * `limit` features above it, and the `limit + 1`-th tells that a next page exists; with `before` the last
 * `limit` below it, and a next page exists when a feature lies above its last. `more` and `earlier` (only
 * asked with a cursor) are uncorrelated subqueries of the same statement (InitPlans, run once): one
 * statement per page instead of one per link. The count (`numberMatched`) stays a statement of its own,
 * sent beside this one: inside a cursor PostgreSQL plans no parallel workers, and a filtered count over a
 * large layer is the slowest part of such a page.
 * Keyset paging on the primary key: each page is an index range, whatever its depth, and a feature
 * appended meanwhile (always a higher id: writers of a dataset are serialized) never shifts a page.
 */
export function itemsQuery(sql: Queryable, ds: Geodataset, f: ReadFilters, page: ItemsPage): Fragment {
  const table = sqlTable(sql, ds);
  const where = () => sqlWhere(sql, ds, f, 't');
  const text = sqlFeatureText(sql, ds, page.crs);
  const before = page.before !== undefined;
  const rows = before
    ? sql`select t.id, ${text} as f from ${table} t where ${where()} and t.id < ${page.before}::bigint
        order by t.id desc limit ${page.limit}::int`
    : sql`select t.id, ${text} as f from ${table} t where ${where()} and t.id > ${page.after ?? 0}::bigint
        order by t.id offset ${page.offset ?? 0}::bigint limit ${page.limit + 1}::int`;
  const more = before
    ? sql`exists(select 1 from ${table} t where ${where()} and t.id > (select max(p.id) from p))`
    : sql`(select count(*) from p) > ${page.limit}::int`;
  const earlier =
    page.after !== undefined || before
      ? sql`exists(select 1 from ${table} t where ${where()} and t.id < (select min(p.id) from p))`
      : sql`false`;
  return sql`with p as materialized (
      select q.id, q.f, row_number() over (order by q.id) as rn from (${rows}) q
    )
    select c.f, coalesce(c.n, 0)::int as n, c.first::text, c.last::text, ${more} as more,
      ${earlier} as earlier
    from (select) one left join (
      select (p.rn - 1) / ${CHUNK_FEATURES}::int as chunk, string_agg(p.f, ',' order by p.id) as f,
        count(*) as n, min(p.id) as first, max(p.id) as last
      from p where p.rn <= ${page.limit}::int group by 1
    ) c on true
    order by c.chunk`;
}

/**
 * The rows of `itemsQuery` (docs/ogc.md, "Items"): a page of up to `CHUNKS_PER_FETCH` rows at once, a
 * larger one with a cursor of that many rows. The handler's reads, and the bench's "SQL alone". A database refusal of a value is 400 (`withReadErrors`);
 * leaving early closes the cursor.
 */
export async function* readItemsChunks(
  sql: Queryable,
  ds: Geodataset,
  f: ReadFilters,
  page: ItemsPage,
): AsyncGenerator<ItemsChunk> {
  if (page.limit <= CHUNK_FEATURES * CHUNKS_PER_FETCH) {
    // At most CHUNKS_PER_FETCH rows: read at once, without a cursor's closing exchange.
    const rows = await withReadErrors(() => itemsQuery(sql, ds, f, page));
    for (const row of rows) yield row as unknown as ItemsChunk;
    return;
  }
  const batches = itemsQuery(sql, ds, f, page).cursor(CHUNKS_PER_FETCH)[Symbol.asyncIterator]();
  let done = false;
  try {
    for (;;) {
      const next = await withReadErrors(() => batches.next());
      if (next.done) break;
      for (const row of next.value) yield row as unknown as ItemsChunk;
    }
    done = true;
  } finally {
    if (!done) await batches.return?.();
  }
}

/** Whether anything filters: any filter a later module adds to `ReadFilters`, such as CQL2's, counts. */
function isFiltered(f: ReadFilters): boolean {
  const { filters, noDuplicates, ...others } = f;
  return filters.length > 0 || noDuplicates || Object.values(others).some((v) => v !== undefined);
}

/**
 * How many features match: the catalog's count when nothing filters, else a count with the page's
 * filters.
 */
export async function numberMatched(sql: Queryable, ds: Geodataset, f: ReadFilters): Promise<number> {
  if (!isFiltered(f)) return ds.numFeatures;
  const [row] = await withReadErrors(
    () => sql`select count(*)::bigint as n from ${sqlTable(sql, ds)} t where ${sqlWhere(sql, ds, f, 't')}`,
  );
  return Number(row.n);
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
