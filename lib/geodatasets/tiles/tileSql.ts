import type { Fragment } from '#lib/db/fragments.ts';
import type { Queryable } from '#lib/db/index.ts';
import { type Geodataset, sqlTable } from '#lib/geodatasets/catalog.ts';
import { sqlOverview, sqlRankBelow } from '#lib/geodatasets/rank.ts';
import { BUFFER, EXTENT, type TileAddress, tileFilterBounds } from '#lib/geodatasets/tiles/tileParams.ts';

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

function rankOf(rank: number | RankRead): RankRead {
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

/**
 * SQL of one vector tile, one function per encoder (as martin and pg_tileserv shape theirs):
 * - `sqlTileMvt`: the server path, `ST_AsMVTGeom(..., 4096, 64, true)` + `ST_AsMVT` in the database;
 * - `sqlTileRows`: the embedded path (PGlite's PostGIS has no protobuf): geometries clipped to the
 *   buffered tile, mapped to tile pixels (y flipped), snapped to the pixel grid and returned as GeoJSON
 *   text for the JS encoder (docs/tiles.md, "Tiles").
 * Both select the same features through `sqlKept`: candidates by `geom && box` (`tileFilterBounds`, GiST) plus the
 * request's filters (`where`), then the deterministic thinning of docs/tiles.md when there are more than
 * `maxFeatures` candidates.
 */

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
function sqlKept(
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

/**
 * Properties as tile attributes: top-level keys; nested objects and arrays become their JSON text
 * (ST_AsMVT would drop them; docs/tiles.md); nulls are left out by both encoders. With `_source`, only the
 * given paths, each an attribute named by its dotted path (docs/tiles.md).
 */
function sqlAttributes(sql: Queryable, ds: Geodataset, source?: string[][]): Fragment {
  const props = ds.propertiesType === 'json' ? sql`k.properties::jsonb` : sql`k.properties`;
  if (source && source.length > 0) {
    const pairs = source.map((path) => {
      const v = sql`(${props} #> ${path}::text[])`;
      return sql`jsonb_build_object(${path.join('.')}::text,
        case when jsonb_typeof(${v}) in ('object', 'array') then to_jsonb(${v}::text) else ${v} end)`;
    });
    return pairs.reduce((a, b) => sql`${a} || ${b}`);
  }
  // Rebuilding the object costs; most rows have no nested value and pass through as they are.
  return sql`(case when jsonb_typeof(${props}) <> 'object' then '{}'::jsonb
      when not jsonb_path_exists(${props}, 'strict $.* ? (@.type() == "object" || @.type() == "array")', '{}', true)
        then ${props}
      else (select jsonb_object_agg(e.key, case when jsonb_typeof(e.value) in ('object', 'array')
                                                then to_jsonb(e.value::text) else e.value end)
            from jsonb_each(${props}) e) end)`;
}

/**
 * The size guard's estimate (docs/tiles.md), one rule for both encoders. A tile of `count` kept features
 * keeps them all when `count ≤ SAMPLE_ABOVE`, or when `bound`, the sum over them of their stored sizes
 * (`sqlSizeBound`; a thinned tile's from its ranked rows), is within the budget: a feature's MVT encoding
 * is smaller than its stored row. Otherwise the first SAMPLE features in hash order are encoded, `sampleBytes`, and the tile
 * keeps its first ⌊0.9 · budget · SAMPLE / sampleBytes⌋ features in hash order (all of them if that is
 * more). One encoding of a large tile instead of one over the budget and a second below it.
 */
export const SAMPLE = 256;
export const SAMPLE_ABOVE = 1024;
/** Bytes added per feature to `sqlSizeBound`: an MVT feature's own fields (id, type, tag and geometry headers). */
export const FEATURE_OVERHEAD = 24;

export function needsSample(count: number, bound: number, budget: number): boolean {
  return count > SAMPLE_ABOVE && bound > budget;
}

export function keepBySample(count: number, sampleBytes: number, budget: number): number {
  if (sampleBytes <= 0) return count;
  return Math.max(1, Math.min(count, Math.floor((0.9 * budget * SAMPLE) / sampleBytes)));
}

/** A stored feature's size, bounding its MVT encoding (see `needsSample`). */
export function sqlSizeBound(sql: Queryable, row: Fragment): Fragment {
  return sql`(pg_column_size(${row}.properties) + pg_column_size(${row}.geom) + ${FEATURE_OVERHEAD}::int)`;
}

/**
 * Server path: one row `{tile, bytes, n}`, the tile as base64 text (`encode` breaks its lines every 76
 * characters; they are removed) and its length in bytes; at most `budget` bytes by the sample's estimate.
 */
export function sqlTileMvt(
  sql: Queryable,
  ds: Geodataset,
  a: TileAddress,
  where: Fragment,
  maxFeatures: number,
  budget: number,
  rankRead: number | RankRead,
  source?: string[][],
): Fragment {
  const rank = rankOf(rankRead);
  const { level } = rank;
  const mvtRows = (rows: Fragment) => sql`
      select k.id, ST_AsMVTGeom(ST_Transform(k.geom, 3857), tile_box.env, ${EXTENT}::int, ${BUFFER}::int, true) as geom,
             ${sqlAttributes(sql, ds, source)} as attributes
      from ${rows} k, tile_box`;
  const thinned = sql`(select c from candidate_count) > ${maxFeatures}::int`;
  // `needsSample` and `keepBySample` in SQL; `withinBound`: the tile is known to fit without a sample.
  const keepN = (count: Fragment, withinBound: Fragment, sample: Fragment) => sql`
      case when ${count} <= ${SAMPLE_ABOVE}::int or ${withinBound} then ${count}
        else least(${count}, greatest(1, floor(0.9 * ${budget}::float8 * ${SAMPLE}::float8 / greatest(1, (
          select octet_length(ST_AsMVT(q, ${ds.name}::text, ${EXTENT}::int, 'geom', 'id'))
          from (${mvtRows(sample)}) q where q.geom is not null)))))::bigint end`;
  return sql`
    with ${sqlKept(sql, ds, a, where, maxFeatures, rank)},
    -- Not thinned: the candidates, ranked by hash only when the budget needs it.
    all_stats as (
      select c, case when ${thinned} or c <= ${SAMPLE_ABOVE}::int then 0
        else (select sum(${sqlSizeBound(sql, sql`candidates`)}) from candidates) end as bound
      from candidate_count
    ),
    all_n as (
      select ${keepN(
        sql`c`,
        sql`bound <= ${budget}::float8`,
        sql`(select * from candidates order by ${sqlIdHash(sql, sql`id`)}, id limit ${SAMPLE}::int)`,
      )} as n
      from all_stats
    ),
    -- Thinned: the kept ids in hash order, their rows read back for the first n only. (The prefix's sort
    -- carries no more columns than it needs: one more can push its top-N heap past work_mem.)
    thin as materialized (
      select id, b, row_number() over (order by h, id) as rn from thinned_ids where ${thinned}
    ),
    -- A thinned tile's bound comes from its ranked rows' sizes (read with the ranking, \`hash_prefix\`).
    thin_n as (
      select ${keepN(
        sql`c`,
        sql`b <= ${budget}::float8`,
        sql`(select t.* from ${sqlRankSource(sql, ds, level)} t
             where t.id = any(array(select id from thin where rn <= ${SAMPLE}::int)) order by t.id)`,
      )} as n
      from (select count(*) as c, coalesce(sum(b), 0) as b from thin) thin_count
    ),
    chosen as (
      select id, geom, properties from candidates
      where not ${thinned} and (select n from all_n) >= (select c from all_stats)
      union all
      select id, geom, properties
      from (select * from candidates order by ${sqlIdHash(sql, sql`id`)}, id
            limit case when ${thinned} then 0 else (select n from all_n) end) f
      where not ${thinned} and (select n from all_n) < (select c from all_stats)
      union all
      (select t.id, t.geom, t.properties from ${sqlRankSource(sql, ds, level)} t
       where ${thinned} and t.id = any(array(select id from thin where rn <= (select n from thin_n)))
       order by t.id)
    )
    select replace(encode(m.tile, 'base64'), chr(10), '') as tile, coalesce(octet_length(m.tile), 0) as bytes, m.n
    from (
      select ST_AsMVT(q, ${ds.name}::text, ${EXTENT}::int, 'geom', 'id') as tile, count(*)::int as n
      from (${mvtRows(sql`chosen`)}) q
      where q.geom is not null
    ) m`;
}

/**
 * Embedded path: rows `{id, g (GeoJSON text in tile pixels, null or empty when nothing is left of it), attributes,
 * b (its size bound, `sqlSizeBound`)}` ordered by id: every kept feature, as the size guard counts
 * them.
 */
export function sqlTileRows(
  sql: Queryable,
  ds: Geodataset,
  a: TileAddress,
  where: Fragment,
  maxFeatures: number,
  rankRead: number | RankRead,
  source?: string[][],
): Fragment {
  const rank = rankOf(rankRead);
  return sql`
    with ${sqlKept(sql, ds, a, where, maxFeatures, rank)}
    select r.id, ST_AsGeoJSON(r.g, 0) as g, r.attributes, r.b
    from (
      select k.id, ${sqlSizeBound(sql, sql`k`)} as b,
             ST_RemoveRepeatedPoints(ST_SnapToGrid(ST_Affine(ST_ClipByBox2D(ST_Transform(k.geom, 3857), tile_box.clip),
               tile_box.s, 0, 0, -tile_box.s, -tile_box.xmin * tile_box.s, tile_box.ymax * tile_box.s), 1)) as g,
             ${sqlAttributes(sql, ds, source)} as attributes
      from kept k, tile_box
    ) r
    order by r.id`;
}
