import type { Fragment } from '#lib/db/fragments.ts';
import type { Queryable } from '#lib/db/index.ts';
import type { Geodataset } from '#lib/geodatasets/catalog.ts';
import { SAMPLE, SAMPLE_ABOVE, sqlSizeBound } from '#lib/geodatasets/tiles/sizeGuard.ts';
import {
  type RankRead,
  rankOf,
  sqlIdHash,
  sqlKept,
  sqlRankSource,
} from '#lib/geodatasets/tiles/thinningSql.ts';
import { BUFFER, EXTENT, type TileAddress } from '#lib/geodatasets/tiles/tileParams.ts';

/**
 * SQL of one vector tile, one function per encoder (as martin and pg_tileserv shape theirs):
 * - `sqlTileMvt`: the server path, `ST_AsMVTGeom(..., 4096, 64, true)` + `ST_AsMVT` in the database;
 * - `sqlTileRows`: the embedded path (PGlite's PostGIS has no protobuf): geometries clipped to the
 *   buffered tile, mapped to tile pixels (y flipped), snapped to the pixel grid and returned as GeoJSON
 *   text for the JS encoder (docs/tiles.md, "Tiles").
 * Both select the same features through `sqlKept` (thinningSql.ts): candidates by `geom && box`
 * (`tileFilterBounds`, GiST) plus the request's filters (`where`), then the deterministic thinning of
 * docs/tiles.md when there are more than `maxFeatures` candidates; both keep to the byte budget by the rule
 * of sizeGuard.ts. Their text, shape by shape: tests/unit/__snapshots__/tile-sql/.
 */

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
