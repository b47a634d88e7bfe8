import type { Fragment } from '#lib/db/fragments.ts';
import type { Queryable } from '#lib/db/index.ts';
import { type Geodataset, sqlTable } from '#lib/geodatasets/catalog.ts';
import { LEVEL_SHIFT, PIXEL_ZOOM, sqlOverview } from '#lib/geodatasets/rank.ts';
import { BUFFER, EXTENT, type TileAddress, tileFilterBounds } from '#lib/geodatasets/read/tileParams.ts';

/*
 * Which features a vector tile keeps, in SQL (docs/tiles.md, "Thinning"): all its candidates when they are
 * at most the cap; else one per occupied pixel of the tile's 256-pixel rendering, read from the layer's
 * pixel levels (lib/geodatasets/rank.ts); and only when those are still more than the cap, the coarsest
 * levels whole and the next one by the id hash, up to the cap (a thinned tile, marked). Both encoders'
 * statements (tileSql.ts) begin with `sqlKept`.
 */

/**
 * A tile reads at most this many times its cap (plus one) from one level: a level holds at most 4 × the
 * one before, and the levels before the last one read hold at most the cap together.
 */
export const LEVEL_READ = 4;

/** Knuth's multiplicative hash of the internal id, in [0, 2^32): the order within a level (docs/tiles.md). */
export function sqlIdHash(sql: Queryable, id: Fragment): Fragment {
  return sql`((${id} * 2654435761::bigint) % 4294967296::bigint)`;
}

/** `sqlIdHash` in JS. */
export function idHash(id: number | string | bigint): number {
  return Number((BigInt(id) * 2654435761n) % 4294967296n);
}

/** The tile's filter box: the tile grown by the buffer, in lon/lat (`tileFilterBounds`). */
function sqlFilterBox(sql: Queryable, a: TileAddress): Fragment {
  const f = tileFilterBounds(a);
  return sql`ST_MakeEnvelope(${f[0]}::float8, ${f[1]}::float8, ${f[2]}::float8, ${f[3]}::float8, 4326)`;
}

/**
 * The tile's features of levels 0..z (the first of each occupied pixel of zoom z, and the features larger
 * than a pixel), level by level, until more than `cap` are read: the levels after that one cannot be
 * kept (a thinned tile keeps the coarsest levels whole and the next one by hash), so they are not read.
 * One GiST probe of the overview per level read, each at most LEVEL_READ × cap + 1 rows; a recursive
 * statement, so the probe of level j + 1 runs only when levels 0..j hold at most the cap. None beyond
 * PIXEL_ZOOM (the levels end there), and none when `guard` is false.
 */
function sqlPixels(sql: Queryable, ds: Geodataset, a: TileAddress, guard: Fragment, cap: number): Fragment {
  if (a.z > PIXEL_ZOOM) return sql`select null::bigint as id, null::smallint as mz where false`;
  const f = tileFilterBounds(a);
  const level = (j: Fragment) => sql`(
    select coalesce(array_agg(o.id), '{}'::bigint[]) as ids, coalesce(array_agg(o.mz), '{}'::smallint[]) as mzs
    from (select o.id, o.mz from ${sqlOverview(sql, ds)} o
          where o.k && ST_MakeEnvelope(${f[0]}::float8 + ${LEVEL_SHIFT}::float8 * ${j}, ${f[1]}::float8,
                                       ${f[2]}::float8 + ${LEVEL_SHIFT}::float8 * ${j}, ${f[3]}::float8, 4326)
          limit ${LEVEL_READ * cap + 1}::int) o)`;
  return sql`
    with recursive levels (j, ids, mzs, total) as (
      select 0, l.ids, l.mzs, cardinality(l.ids) from ${level(sql`0`)} l where ${guard}
      union all
      select v.j + 1, l.ids, l.mzs, v.total + cardinality(l.ids)
      from levels v cross join lateral ${level(sql`(v.j + 1)`)} l
      where v.total <= ${cap}::int and v.j < ${a.z}::int
    )
    select u.id, u.mz from levels v cross join lateral unnest(v.ids, v.mzs) u(id, mz)`;
}

/**
 * The common CTEs, ending with `kept` (id, geom, properties, rk: the order in which the size guard keeps
 * them) and `thinning` (one row: `thinned`, whether a feature may be missing whose pixel no kept feature
 * covers):
 * - `tile_box`: the tile envelope in 3857, the clip box and the pixel transform;
 * - `pixels`: the tile's pixel levels up to its zoom (`sqlPixels`), `candidates`: at most cap + 1 of its
 *   features (filter box and the request's filters). Without filters the levels are read first, and the
 *   candidates only when the levels hold at most the cap; with filters the candidates first, and the levels
 *   only when there are more than the cap (the levels are of all features);
 * - `kept`: the candidates when they are all of them (`complete`); else the levels' features in (level,
 *   hash, id) order, the first `cap` of them, that pass the filters; beyond the levels (z > PIXEL_ZOOM)
 *   the first `cap` candidates by hash.
 * `thinned`: the levels held more than the cap, or a level's feature failed the filters (its pixel may be
 * uncovered), or beyond the levels the candidates were more than the cap.
 */
export function sqlKept(
  sql: Queryable,
  ds: Geodataset,
  a: TileAddress,
  where: Fragment,
  cap: number,
  filtered: boolean,
): Fragment {
  const table = sqlTable(sql, ds);
  const deep = a.z > PIXEL_ZOOM;
  const box = sql`t.geom && ${sqlFilterBox(sql, a)} and ${where}`;
  const candidates = (guard: Fragment) => sql`
    candidates as materialized (
      select t.id, t.geom, t.properties from ${table} t where ${guard} and ${box} limit ${cap + 1}::int
    ),
    candidate_count as (select count(*)::int as c from candidates)`;
  const pixels = (guard: Fragment) => sql`
    pixels as materialized (${sqlPixels(sql, ds, a, guard, cap)}),
    pixel_count as (select count(*)::int as c from pixels)`;
  const reads = filtered
    ? sql`${candidates(sql`true`)}, ${pixels(sql`(select c from candidate_count) > ${cap}::int`)}`
    : sql`${pixels(sql`true`)}, ${candidates(sql`(select c from pixel_count) <= ${cap}::int`)}`;
  const hash = sqlIdHash(sql, sql`p.id`);
  return sql`
    tile_box as (
      select e.env,
             ST_Expand(e.env, (ST_XMax(e.env) - ST_XMin(e.env)) * ${BUFFER / EXTENT}::float8)::box2d as clip,
             ${EXTENT}::float8 / (ST_XMax(e.env) - ST_XMin(e.env)) as s,
             ST_XMin(e.env) as xmin, ST_YMax(e.env) as ymax
      from (select ST_TileEnvelope(${a.z}::int, ${a.x}::int, ${a.y}::int) as env) e
    ),
    ${reads},
    mode as (
      select p.c > ${cap}::int as capped, p.c <= ${cap}::int and c.c <= ${cap}::int as complete
      from pixel_count p, candidate_count c
    ),
    picked as materialized (
      select id, rn from (select p.id, row_number() over (order by p.mz, ${hash}, p.id) as rn from pixels p) r
      where not (select complete from mode) and rn <= ${cap}::int
    ),
    kept as materialized (
      (select c.id, c.geom, c.properties, row_number() over (order by ${sqlIdHash(sql, sql`c.id`)}, c.id) as rk
       from candidates c where (select complete from mode)${deep ? sql` or true` : sql``}
       order by rk limit ${cap}::int)
    ${
      deep
        ? sql``
        : sql`union all
      (select t.id, t.geom, t.properties, row_number() over (order by p.rn) as rk
       from unnest(array(select id from picked order by id), array(select rn from picked order by id)) p(id, rn)
       join ${table} t on t.id = p.id
       where ${where})`
    }
    ),
    thinning as (
      select (select capped from mode)
          or (not (select complete from mode)
              and ${deep ? sql`true` : sql`(select count(*) from picked) > (select count(*) from kept)`}) as thinned
    )`;
}

/**
 * Whether `where` is the bare `true` of a read without filters (lib/geodatasets/read/filters.ts,
 * `sqlWhere`): a postgres.js fragment shows its text. Any other fragment counts as filtered, the order
 * that is right for both.
 */
export function isUnfiltered(where: Fragment): boolean {
  const w = where as unknown as { strings?: readonly string[]; args?: readonly unknown[] };
  return w.strings?.length === 1 && w.strings[0].trim() === 'true' && (w.args?.length ?? 0) === 0;
}
