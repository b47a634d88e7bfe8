import { type Fragment, sqlIdentifier } from '#lib/db/fragments.ts';
import type { Queryable } from '#lib/db/index.ts';
import { type Geodataset, safeTable } from './catalog.ts';

/**
 * Pixel levels of a geodataset's features, for tiles that leave out only what shares a pixel
 * (docs/tiles.md, "Pixel levels"; sql/migrations/0021_tile_pixel_levels.sql). Every feature has the zoom
 * `mz` from which it is the first feature of its pixel (256-pixel tiles; 23: it shares its zoom-22 pixel
 * with an earlier one), or, for a line or polygon, from which its extent spans a pixel if that is
 * earlier. The features with `mz <= z` are one per occupied pixel of zoom z (plus those larger than a
 * pixel), and each zoom's set holds the one before it. They are stored in the layer's overview
 * (`<table>_ovr`: id, key, mz, and `k`, the bounding box moved by 720° × mz in longitude, under one GiST
 * index), kept exact by statement triggers on the layer's table through every write.
 */

/** The deepest zoom whose pixels the levels know (2^30 pixels a side); `mz` is at most one more. */
export const PIXEL_ZOOM = 22;

/** Longitude shift between two levels of `k`: a level's boxes never meet another's. */
export const LEVEL_SHIFT = 720;

/** The overview of `table` (docs/tiles.md, "Pixel levels"): `<table>_ovr`. */
export function overviewName(table: string): string {
  return `${safeTable(table)}_ovr`;
}

/** The dataset's overview as a SQL fragment, guarded like its table (`safeTable`). */
export function sqlOverview(sql: Queryable, ds: Pick<Geodataset, 'table'>): Fragment {
  return sqlIdentifier(sql, overviewName(ds.table));
}

/**
 * Makes the pixel levels of `table` when it has none (after a load, an append, a stats recompute, or
 * when a tile finds none): its overview, its indexes and the triggers that keep it exact
 * (`geodataset_pixel_levels`). Made for every layer, whatever its size: a layer that grows by appends
 * keeps them through the triggers. `_n` (the layer's size) is kept for the callers' shape.
 */
export async function createRankLevels(sql: Queryable, table: string, _n?: number): Promise<void> {
  await sql`select geodataset_pixel_levels(${safeTable(table)}::text)`;
}

/** Drops the overview of `table` (with the table: a dropped table's triggers go with it, its overview does not). */
export async function dropRankLevels(sql: Queryable, table: string): Promise<void> {
  await sql.unsafe(`drop table if exists ${overviewName(table)}`);
}

/** Renames the overview of `from` with its table (a recreate's swap); none to rename is fine. */
export async function renameRankLevels(sql: Queryable, from: string, to: string): Promise<void> {
  await sql.unsafe(`alter table if exists ${overviewName(from)} rename to ${overviewName(to)}`);
}

/**
 * The layer's full-detail zoom: the highest `mz` of its features, the zoom from which every feature is
 * the first of its pixel, so every tile of that zoom or deeper holds every feature (within the feature
 * cap: docs/tiles.md). One index probe per level, deepest first.
 */
export async function fullDetailZoom(sql: Queryable, ds: Pick<Geodataset, 'table'>): Promise<number> {
  const [row] = await sql`
    select coalesce(max(j), 0)::int as z from generate_series(0, ${PIXEL_ZOOM + 1}::int) j
    where exists (select 1 from ${sqlOverview(sql, ds)} o
                  where o.k && ST_MakeEnvelope(${LEVEL_SHIFT}::float8 * j - 180, -90, ${LEVEL_SHIFT}::float8 * j + 180, 90, 4326))`;
  return Number(row?.z ?? 0);
}
