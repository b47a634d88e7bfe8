import { type Fragment, sqlIdentifier } from '#lib/db/fragments.ts';
import type { Queryable } from '#lib/db/index.ts';
import { type Geodataset, safeTable } from './catalog.ts';

/**
 * Rank levels of a geodataset's features, for tiles that keep a sample of their candidates (docs/tiles.md,
 * "Rank levels"). A feature's rank is `h(id) = (id × 2654435761) mod 2^32`, the thinning order; level k
 * (1..RANK_LEVELS) holds the features with `h(id) < 2^32 / 4^k`, a quarter of the level before it, spread
 * over the layer as the features are. The features of level 1 are copied to the layer's overview
 * (`<table>_ovr`), stored in (level, space) order so that each level's features of a tile lie on a few
 * pages; each level has a partial GiST index on the overview's `geom` for exactly that predicate. A tile
 * reads the first features of its box in rank order through the sparsest level that still holds enough of
 * them, instead of every feature of the box. Statement triggers on the layer's table keep the overview
 * exact through every write.
 */
export const RANK_LEVELS = 6;

/** A level is indexed only when the layer puts at least this many features in it. */
export const MIN_LEVEL_ROWS = 8192;

/**
 * The level-k predicate on `t.id` as a fragment, written with its constant in the SQL text (a bound value
 * would not let the planner match the partial index): one fixed fragment per level, none from input.
 */
export function sqlRankBelow(sql: Queryable, k: number): Fragment {
  switch (k) {
    case 1:
      return sql`((t.id * 2654435761::bigint) % 4294967296::bigint) < 1073741824::bigint`;
    case 2:
      return sql`((t.id * 2654435761::bigint) % 4294967296::bigint) < 268435456::bigint`;
    case 3:
      return sql`((t.id * 2654435761::bigint) % 4294967296::bigint) < 67108864::bigint`;
    case 4:
      return sql`((t.id * 2654435761::bigint) % 4294967296::bigint) < 16777216::bigint`;
    case 5:
      return sql`((t.id * 2654435761::bigint) % 4294967296::bigint) < 4194304::bigint`;
    case 6:
      return sql`((t.id * 2654435761::bigint) % 4294967296::bigint) < 1048576::bigint`;
    default:
      return sql`true`;
  }
}

/** The share of the features level k holds (level 0: all). */
export function levelShare(k: number): number {
  return 4 ** -k;
}

/** The levels worth indexing for a layer of `n` features: 1..K, K the last with ≥ MIN_LEVEL_ROWS. */
export function indexedLevels(n: number): number {
  let k = 0;
  while (k < RANK_LEVELS && n * levelShare(k + 1) >= MIN_LEVEL_ROWS) k++;
  return k;
}

/** The rank overview of `table` (docs/tiles.md, "Rank overview"): `<table>_ovr`. */
export function overviewName(table: string): string {
  return `${safeTable(table)}_ovr`;
}

/** The dataset's rank overview as a SQL fragment, guarded like its table (`safeTable`). */
export function sqlOverview(sql: Queryable, ds: Pick<Geodataset, 'table'>): Fragment {
  return sqlIdentifier(sql, overviewName(ds.table));
}

/**
 * Makes the rank levels of `table` for `n` features (after a load or an append): its overview, the
 * features of level 1 in (level, space) order kept exact by triggers, when it has none, and the level
 * indexes 1..`indexedLevels(n)` it lacks (sql/migrations/0018_tile_rank_overviews.sql,
 * `geodataset_rank_overview`). A layer too small for a level gets nothing. `levels` overrides the count
 * (tests: a small layer's levels).
 */
export async function createRankLevels(
  sql: Queryable,
  table: string,
  n: number,
  levels = indexedLevels(n),
): Promise<void> {
  if (levels === 0) return;
  await sql`select geodataset_rank_overview(${safeTable(table)}::text, ${levels}::int)`;
}

/** Drops the overview of `table` (with the table: a dropped table's triggers go with it, its overview does not). */
export async function dropRankLevels(sql: Queryable, table: string): Promise<void> {
  await sql.unsafe(`drop table if exists ${overviewName(table)}`);
}

/** Renames the overview of `from` with its table (a recreate's swap); none to rename is fine. */
export async function renameRankLevels(sql: Queryable, from: string, to: string): Promise<void> {
  await sql.unsafe(`alter table if exists ${overviewName(from)} rename to ${overviewName(to)}`);
}
