import type { Fragment } from '#lib/db/fragments.ts';
import type { Queryable } from '#lib/db/index.ts';
import type { Geodataset } from '#lib/geodatasets/catalog.ts';
import { BUFFER, EXTENT, type TileAddress } from '#lib/geodatasets/read/tileParams.ts';
import { SAMPLE, SAMPLE_ABOVE, sqlSizeBound } from '#lib/geodatasets/tiles/sizeGuard.ts';
import { sqlKept } from '#lib/geodatasets/tiles/thinningSql.ts';

/**
 * SQL of one vector tile, one function per encoder (as martin and pg_tileserv shape theirs):
 * - `sqlTileMvt`: the server path, `ST_AsMVTGeom(..., 4096, 64, true)` + `ST_AsMVT` in the database;
 * - `sqlTileRows`: the embedded path (PGlite's PostGIS has no protobuf): geometries clipped to the
 *   buffered tile, mapped to tile pixels (y flipped), snapped to the pixel grid and returned as GeoJSON
 *   text for the JS encoder (docs/tiles.md, "Tiles").
 * Both select the same features through `sqlKept` (thinningSql.ts): all candidates (`geom && box`,
 * `tileFilterBounds`, GiST, plus the request's filters `where`) when they are at most `maxFeatures`, else
 * one per pixel from the layer's pixel levels, thinned evenly to `maxFeatures` only when those are more
 * (docs/tiles.md, "Thinning"); both keep to the byte budget by the rule of sizeGuard.ts, and both mark a
 * thinned tile's features with `_thinned: true`. Their text, shape by shape: tests/unit/__snapshots__/tile-sql/.
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

/** The attribute that marks every feature of a thinned tile (docs/tiles.md, "Thinning"). */
export const THINNED_ATTRIBUTE = '_thinned';

/** `attributes` with the thinned mark when `thinned` (a boolean SQL expression). */
function sqlMarked(sql: Queryable, attributes: Fragment, thinned: Fragment): Fragment {
  return sql`(${attributes} || case when ${thinned} then jsonb_build_object(${THINNED_ATTRIBUTE}::text, true) else '{}'::jsonb end)`;
}

/**
 * Server path: one row `{tile, bytes, n, thinned}`, the tile as base64 text (`encode` breaks its lines
 * every 76 characters; they are removed) and its length in bytes; at most `budget` bytes by the sample's
 * estimate: a tile of more than SAMPLE_ABOVE features whose stored sizes pass the budget keeps its first
 * features in `rk` order (sizeGuard.ts), and is then thinned too.
 */
export function sqlTileMvt(
  sql: Queryable,
  ds: Geodataset,
  a: TileAddress,
  where: Fragment,
  maxFeatures: number,
  budget: number,
  filtered: boolean,
  source?: string[][],
): Fragment {
  const mvtRows = (rows: Fragment, thinned: Fragment) => sql`
      select k.id, ST_AsMVTGeom(ST_Transform(k.geom, 3857), tile_box.env, ${EXTENT}::int, ${BUFFER}::int, true) as geom,
             ${sqlMarked(sql, sqlAttributes(sql, ds, source), thinned)} as attributes
      from ${rows} k, tile_box`;
  const before = sql`(select thinned from thinning)`;
  return sql`
    with ${sqlKept(sql, ds, a, where, maxFeatures, filtered)},
    kept_stats as (
      select count(*)::int as c,
             case when count(*) <= ${SAMPLE_ABOVE}::int then 0 else sum(${sqlSizeBound(sql, sql`kept`)}) end as bound
      from kept
    ),
    -- \`needsSample\` and \`keepBySample\` in SQL: the first SAMPLE in \`rk\` order encoded when the bound passes.
    keep as (
      select case when c <= ${SAMPLE_ABOVE}::int or bound <= ${budget}::float8 then c
        else least(c, greatest(1, floor(0.9 * ${budget}::float8 * ${SAMPLE}::float8 / greatest(1, (
          select octet_length(ST_AsMVT(q, ${ds.name}::text, ${EXTENT}::int, 'geom', 'id'))
          from (${mvtRows(sql`(select * from kept where rk <= ${SAMPLE}::int order by id)`, before)}) q
          where q.geom is not null)))))::int end as n, c
      from kept_stats
    ),
    flags as (select ${before} or n < c as thinned from keep),
    chosen as (select id, geom, properties from kept where rk <= (select n from keep) order by id)
    select replace(encode(m.tile, 'base64'), chr(10), '') as tile, coalesce(octet_length(m.tile), 0) as bytes, m.n,
           (select thinned from flags) as thinned
    from (
      select ST_AsMVT(q, ${ds.name}::text, ${EXTENT}::int, 'geom', 'id') as tile, count(*)::int as n
      from (${mvtRows(sql`chosen`, sql`(select thinned from flags)`)}) q
      where q.geom is not null
    ) m`;
}

/**
 * Embedded path: rows `{id, g (GeoJSON text in tile pixels, null or empty when nothing is left of it),
 * attributes, b (its size bound, `sqlSizeBound`), rk (the size guard's order), thinned (the tile's
 * thinning before the size guard)}` ordered by id: every kept feature, as the size guard counts them
 * (readTile.ts applies it and the mark in JS).
 */
export function sqlTileRows(
  sql: Queryable,
  ds: Geodataset,
  a: TileAddress,
  where: Fragment,
  maxFeatures: number,
  filtered: boolean,
  source?: string[][],
): Fragment {
  return sql`
    with ${sqlKept(sql, ds, a, where, maxFeatures, filtered)}
    select r.id, ST_AsGeoJSON(r.g, 0) as g, r.attributes, r.b, r.rk, (select thinned from thinning) as thinned
    from (
      select k.id, k.rk, ${sqlSizeBound(sql, sql`k`)} as b,
             ST_RemoveRepeatedPoints(ST_SnapToGrid(ST_Affine(ST_ClipByBox2D(ST_Transform(k.geom, 3857), tile_box.clip),
               tile_box.s, 0, 0, -tile_box.s, -tile_box.xmin * tile_box.s, tile_box.ymax * tile_box.s), 1)) as g,
             ${sqlAttributes(sql, ds, source)} as attributes
      from kept k, tile_box
    ) r
    order by r.id`;
}
