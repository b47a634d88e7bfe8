import type { Fragment } from '#lib/db/fragments.ts';
import type { Queryable } from '#lib/db/index.ts';
import { type Geodataset, sqlTable } from '#lib/geodatasets/catalog.ts';
import { sqlOverview, sqlRankBelow } from '#lib/geodatasets/rank.ts';
import { sqlSizeBound } from '#lib/geodatasets/tiles/sizeGuard.ts';
import { BUFFER, EXTENT, type TileAddress, tileFilterBounds } from '#lib/geodatasets/tiles/tileParams.ts';

/*
 * Which features a vector tile keeps, in SQL: its candidates and, when there are more than the cap, the
 * deterministic thinning of docs/tiles.md ("Thinning"), with the rank-level probe that picks where a thinned
 * tile reads and the id hash that orders it. Both encoders' statements (tileSql.ts) begin with `sqlKept`.
 */

/** Thinning looks at the first PREFIX × keep candidates in hash order (docs/tiles.md). */
export const PREFIX = 2;

/**
 * A thinned tile keeps at most this many features (and at most the cap): what the byte budget holds of
 * small points (about 60 bytes each in 500 KB), so a thinned tile reads no more than it can send.
 */
export const THIN_KEEP = 8192;

/** The features a thinned tile keeps at cap `maxFeatures`. */
export function thinKeep(maxFeatures: number): number {
  return Math.min(maxFeatures, THIN_KEEP);
}

/**
 * Where a thinned tile reads its ranked candidates and kept rows: rank level `level` ≥ 1 from the layer's
 * overview (its level-1 features, stored together: lib/geodatasets/rank.ts), level 0 from the table.
 */
export function sqlRankSource(sql: Queryable, ds: Geodataset, level: number): Fragment {
  return level > 0 ? sqlOverview(sql, ds) : sqlTable(sql, ds);
}

/**
 * How a thinned tile reads its ranked candidates (`rankRead`, lib/geodatasets/tiles/readTile.ts): rank
 * level `level` (0: the whole box); `thinned` when a level's count already showed more candidates than
 * the cap, so the statement does not count them again. A bare number is `{ level, thinned: false }`.
 */
export interface RankRead {
  level: number;
  thinned: boolean;
}

export function rankOf(rank: number | RankRead): RankRead {
  return typeof rank === 'number' ? { level: rank, thinned: false } : rank;
}

/** The tile's filter box (the tile grown by the buffer, in lon/lat: `tileFilterBounds`). */
function sqlFilterBox(sql: Queryable, a: TileAddress): Fragment {
  const f = tileFilterBounds(a);
  return sql`ST_MakeEnvelope(${f[0]}::float8, ${f[1]}::float8, ${f[2]}::float8, ${f[3]}::float8, 4326)`;
}

/**
 * How many of the tile's candidates (filter box and the request's filters) rank level `level` (≥ 1) holds,
 * up to `limit` (lib/geodatasets/rank.ts): one statement through that level's partial index on the
 * layer's overview, reading at most `limit` rows.
 */
export function sqlLevelCount(
  sql: Queryable,
  ds: Geodataset,
  a: TileAddress,
  where: Fragment,
  level: number,
  limit: number,
): Fragment {
  return sql`select count(*)::int as c from (
      select 1 from ${sqlOverview(sql, ds)} t
      where t.geom && ${sqlFilterBox(sql, a)} and ${sqlRankBelow(sql, level)} and ${where}
      limit ${limit}::int) s`;
}

/** Knuth's multiplicative hash of the internal id, in [0, 2^32): the thinning order (docs/tiles.md). */
export function sqlIdHash(sql: Queryable, id: Fragment): Fragment {
  return sql`((${id} * 2654435761::bigint) % 4294967296::bigint)`;
}

/** `sqlIdHash` in JS (the embedded path orders its rows by it). */
export function idHash(id: number | string | bigint): number {
  return Number((BigInt(id) * 2654435761n) % 4294967296n);
}

/**
 * The common CTEs, ending with `kept` (the features of the tile) ready to select from:
 * - `tile_box`: the tile envelope in 3857, the candidate filter box in 4326, the clip box and the pixel transform;
 * - `candidates`: at most `maxFeatures + 1` candidates (filter box and the request's filters); none read
 *   when `rank.thinned` already showed there are more (`candidate_count` is then `maxFeatures + 1`);
 * - `all_candidates`: those candidates when that is all of them (no thinning needed);
 * - otherwise the thinning: `hash_prefix` takes the first PREFIX × `thinKeep` candidates in hash order
 *   (through rank level `level` of the overview, `sqlRankSource`), `thinned_ids` keeps the first of them in each
 *   tile pixel (points only) and stops at `thinKeep(maxFeatures)`;
 * - `kept`: `all_candidates`, or the rows of `thinned_ids` (the embedded path's rows; the server path,
 *   `sqlTileMvt`, ranks `thinned_ids` itself and reads back only the rows its byte budget keeps).
 */
export function sqlKept(
  sql: Queryable,
  ds: Geodataset,
  a: TileAddress,
  where: Fragment,
  maxFeatures: number,
  rank: RankRead,
): Fragment {
  const { level } = rank;
  const table = sqlTable(sql, ds);
  const ranked = sqlRankSource(sql, ds, level);
  const scale = EXTENT * 2 ** a.z;
  // Tile pixel of a point in Web Mercator, by closed-form math on lon/lat (no ST_Transform per row).
  const px = sql`floor((ST_X(hash_prefix.geom) + 180) / 360 * ${scale}::float8 - ${a.x * EXTENT}::float8)`;
  const py = sql`floor((0.5 - ln(tan(pi() / 4 + radians(greatest(least(ST_Y(hash_prefix.geom), 85.06), -85.06)) / 2)) / (2 * pi())) * ${scale}::float8 - ${a.y * EXTENT}::float8)`;
  return sql`
    tile_box as (
      select e.env,
             ST_Expand(e.env, (ST_XMax(e.env) - ST_XMin(e.env)) * ${BUFFER / EXTENT}::float8)::box2d as clip,
             ${EXTENT}::float8 / (ST_XMax(e.env) - ST_XMin(e.env)) as s,
             ST_XMin(e.env) as xmin, ST_YMax(e.env) as ymax
      from (select ST_TileEnvelope(${a.z}::int, ${a.x}::int, ${a.y}::int) as env) e
    ),
    candidates as materialized (
      select t.id, t.geom, t.properties from ${table} t
      where ${rank.thinned ? sql`false` : sql`t.geom && ${sqlFilterBox(sql, a)} and ${where}`}
      limit ${maxFeatures + 1}::int
    ),
    candidate_count as (
      ${rank.thinned ? sql`select ${maxFeatures + 1}::bigint as c` : sql`select count(*) as c from candidates`}
    ),
    all_candidates as (
      select id, geom, properties from candidates
      where (select c from candidate_count) <= ${maxFeatures}::int
    ),
    hash_prefix as (
      select t.id, t.geom, ${sqlIdHash(sql, sql`t.id`)} as h, ${sqlSizeBound(sql, sql`t`)} as b
      from ${ranked} t
      where (select c from candidate_count) > ${maxFeatures}::int and t.geom && ${sqlFilterBox(sql, a)}
        and ${sqlRankBelow(sql, level)} and ${where}
      order by 3, 1
      limit ${PREFIX * thinKeep(maxFeatures)}::int
    ),
    thinned_ids as (
      select id, h, b from (
        select distinct on (pixel_key) id, h, b
        from (
          select hash_prefix.id, hash_prefix.h, hash_prefix.b,
                 case when GeometryType(hash_prefix.geom) = 'POINT'
                      then (least(greatest(${px}, -256), 4400)::bigint + 256) * 8192 + (least(greatest(${py}, -256), 4400)::bigint + 256)
                      else -hash_prefix.id end as pixel_key
          from hash_prefix
        ) d
        order by pixel_key, h, id
      ) s
      order by h, id
      limit ${thinKeep(maxFeatures)}::int
    ),
    kept as (
      select id, geom, properties from all_candidates
      union all
      select t.id, t.geom, t.properties from ${ranked} t where t.id = any(array(select id from thinned_ids))
    )`;
}
