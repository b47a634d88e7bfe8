import type { Queryable } from '#lib/db/index.ts';
import { type Geodataset, sqlTable } from './catalog.ts';

/**
 * The extents a geodataset's catalog row keeps (docs/ogc.md, "Extents and queryables"), so the OGC API
 * collections answer without scanning the features: the 2D bounding box (lon/lat), the earliest and
 * latest of start_time/end_time, and per top-level property the count of non-null values of each JSON
 * type. Every write updates them in its own transaction: a recreate computes them over the new table, an
 * append over its new rows only (ids above the table's previous highest) and widens the stored ones.
 */
export interface Extents {
  bbox: [number, number, number, number] | null;
  timeMin: string | null;
  timeMax: string | null;
  /** property name → JSON type → count of values. */
  propertyTypes: Record<string, Record<string, number>> | null;
}

/** The extents columns of a catalog row. */
export function extentsOf(row: Record<string, any>): Extents {
  const b = row.extent_bbox as number[] | null | undefined;
  return {
    bbox: b && b.length === 4 ? (b.map(Number) as Extents['bbox']) : null,
    timeMin: row.time_min ? new Date(row.time_min).toISOString() : null,
    timeMax: row.time_max ? new Date(row.time_max).toISOString() : null,
    propertyTypes: row.property_types ?? null,
  };
}

/** The table's highest id (0 when empty): an append's new rows are those above it. */
export async function highestId(sql: Queryable, table: Pick<Geodataset, 'table'>): Promise<number> {
  const [row] = await sql`select coalesce(max(id), 0)::bigint as id from ${sqlTable(sql, table)}`;
  return Number(row.id);
}

/**
 * Rows of the primary key one statement of `updateExtents` reads: the database's memory for the property
 * type counts (a `jsonb_each` of every row's properties, aggregated) grows with the rows one statement
 * reads, so an upload of any size is counted in statements of at most this many ids.
 */
export const EXTENT_CHUNK_IDS = 100_000;

/** The extents of the rows with `after < id <= upTo`, one statement. */
async function extentsOfRange(
  sql: Queryable,
  ds: Pick<Geodataset, 'table' | 'propertiesType'>,
  after: number,
  upTo: number,
): Promise<Extents> {
  const t = sqlTable(sql, ds);
  const props = ds.propertiesType === 'json' ? sql`s.properties::jsonb` : sql`s.properties`;
  const range = sql`id > ${after}::bigint and id <= ${upTo}::bigint`;
  const [x] = await sql`
    select
      (select array[ST_XMin(e), ST_YMin(e), ST_XMax(e), ST_YMax(e)]
         from (select ST_Extent(geom)::box2d as e from ${t} where ${range}) b where e is not null) as bbox,
      (select least(min(start_time), min(end_time)) from ${t} where ${range}) as tmin,
      (select greatest(max(start_time), max(end_time)) from ${t} where ${range}) as tmax,
      (select coalesce(jsonb_object_agg(k, types), '{}'::jsonb) from (
         select k, jsonb_object_agg(ty, n) as types from (
           select e.key as k, jsonb_typeof(e.value) as ty, count(*) as n
           from ${t} s, lateral jsonb_each(case when jsonb_typeof(${props}) = 'object' then ${props} else '{}'::jsonb end) e
           where s.id > ${after}::bigint and s.id <= ${upTo}::bigint
             and jsonb_typeof(e.value) <> 'null' group by 1, 2) c
         group by k) p) as types`;
  return extentsOf({ extent_bbox: x.bbox, time_min: x.tmin, time_max: x.tmax, property_types: x.types });
}

/**
 * Computes the extents of the rows of `ds.table` with id above `afterId` (all rows when 0) and stores them
 * in the catalog row `ds.id`: replacing the stored ones, or (`widen`) merged with them. Read in
 * statements of `EXTENT_CHUNK_IDS` ids each, merged here: exact counts, bounded database memory.
 */
export async function updateExtents(
  sql: Queryable,
  ds: Pick<Geodataset, 'id' | 'table' | 'propertiesType'>,
  afterId = 0,
  widen = false,
  chunkIds = EXTENT_CHUNK_IDS,
): Promise<void> {
  const top = await highestId(sql, ds);
  let fresh: Extents = { bbox: null, timeMin: null, timeMax: null, propertyTypes: {} };
  for (let after = afterId; after < top; after += chunkIds) {
    fresh = mergeExtents(fresh, await extentsOfRange(sql, ds, after, Math.min(top, after + chunkIds)));
  }
  let out = fresh;
  if (widen) {
    const [row] =
      await sql`select extent_bbox, time_min, time_max, property_types from geodatasets where id = ${ds.id}`;
    out = mergeExtents(extentsOf(row ?? {}), fresh);
  }
  await sql`
    update geodatasets set extent_bbox = ${out.bbox}::float8[], time_min = ${out.timeMin}::timestamptz,
      time_max = ${out.timeMax}::timestamptz, property_types = ${out.propertyTypes ? sql.json(out.propertyTypes) : null}
    where id = ${ds.id}`;
}

/**
 * The property type counts of the extents, counted in JavaScript as a write's features pass (the same
 * pass as the field statistics): per top-level property, the non-null values of each JSON type, as
 * `jsonb_typeof` names them. Its memory grows with the distinct property names, not with the rows, and
 * the database reads no row's properties for them.
 */
export class PropertyTypeCounts {
  readonly counts: Record<string, Record<string, number>> = {};

  add(properties: Record<string, unknown>): void {
    for (const k in properties) {
      const v = properties[k];
      // (a number JSON cannot hold is stored as null, as JSON.stringify writes it)
      if (v === null || v === undefined || (typeof v === 'number' && !Number.isFinite(v))) continue;
      const ty = Array.isArray(v) ? 'array' : typeof v;
      const name = ty === 'bigint' ? 'number' : ty;
      this.counts[k] ??= {};
      const c = this.counts[k];
      c[name] = (c[name] ?? 0) + 1;
    }
  }
}

/**
 * The extents of a write whose property types were counted as its rows went in (`PropertyTypeCounts`):
 * the box and time range of the rows with id above `afterId` in one statement (constant memory: three
 * aggregates over the rows), stored in the catalog row as `updateExtents` does.
 */
export async function storeExtents(
  sql: Queryable,
  ds: Pick<Geodataset, 'id' | 'table'>,
  types: PropertyTypeCounts,
  afterId = 0,
  widen = false,
): Promise<void> {
  const t = sqlTable(sql, ds);
  const [x] = await sql`
    select array[ST_XMin(e), ST_YMin(e), ST_XMax(e), ST_YMax(e)] as bbox, tmin, tmax from (
      select ST_Extent(geom)::box2d as e, least(min(start_time), min(end_time)) as tmin,
             greatest(max(start_time), max(end_time)) as tmax
      from ${t} where id > ${afterId}::bigint) a`;
  let out = extentsOf({
    extent_bbox: x.bbox?.every((v: unknown) => v !== null) ? x.bbox : null,
    time_min: x.tmin,
    time_max: x.tmax,
    property_types: types.counts,
  });
  if (widen) {
    const [row] =
      await sql`select extent_bbox, time_min, time_max, property_types from geodatasets where id = ${ds.id}`;
    out = mergeExtents(extentsOf(row ?? {}), out);
  }
  await sql`
    update geodatasets set extent_bbox = ${out.bbox}::float8[], time_min = ${out.timeMin}::timestamptz,
      time_max = ${out.timeMax}::timestamptz, property_types = ${out.propertyTypes ? sql.json(out.propertyTypes) : null}
    where id = ${ds.id}`;
}

/** `base` widened by `more`: the union of the boxes and time ranges, the type counts added. */
export function mergeExtents(base: Extents, more: Extents): Extents {
  const a = base.bbox;
  const b = more.bbox;
  const bbox: Extents['bbox'] =
    a && b
      ? [Math.min(a[0], b[0]), Math.min(a[1], b[1]), Math.max(a[2], b[2]), Math.max(a[3], b[3])]
      : (a ?? b);
  const pick = (x: string | null, y: string | null, f: (p: string, q: string) => string) =>
    x && y ? f(x, y) : (x ?? y);
  const types: Record<string, Record<string, number>> = {};
  for (const source of [base.propertyTypes ?? {}, more.propertyTypes ?? {}]) {
    for (const [k, counts] of Object.entries(source)) {
      types[k] ??= {};
      for (const [ty, n] of Object.entries(counts)) types[k][ty] = (types[k][ty] ?? 0) + Number(n);
    }
  }
  return {
    bbox,
    timeMin: pick(base.timeMin, more.timeMin, (p, q) => (p < q ? p : q)),
    timeMax: pick(base.timeMax, more.timeMax, (p, q) => (p > q ? p : q)),
    propertyTypes: types,
  };
}
