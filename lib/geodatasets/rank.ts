import type { Fragment } from '#lib/db/fragments.ts';
import type { Queryable } from '#lib/db/index.ts';
import { safeTable } from './catalog.ts';

/**
 * Rank levels of a geodataset's features, for tiles that keep a sample of their candidates (docs/tiles.md,
 * "Rank levels"). A feature's rank is `h(id) = (id × 2654435761) mod 2^32`, the thinning order; level k
 * (1..RANK_LEVELS) holds the features with `h(id) < 2^32 / 4^k`, a quarter of the level before it, spread
 * over the layer as the features are. Each level has a partial GiST index on `geom` for exactly that
 * predicate, so a tile reads the first features of its box in rank order through the sparsest level that
 * still holds enough of them, instead of every feature of the box. The predicate is an expression of the
 * id: writes and appends need no rank column; the indexes follow the rows.
 */
export const RANK_LEVELS = 6;

/** A level is indexed only when the layer puts at least this many features in it. */
export const MIN_LEVEL_ROWS = 8192;

/** `h(id) < 2^32 / 4^k`, k = 1..RANK_LEVELS, as SQL text (the index predicate). */
export function rankPredicateText(k: number, column = 'id'): string {
  return `((${column} * 2654435761::bigint) % 4294967296::bigint) < ${2 ** (32 - 2 * k)}::bigint`;
}

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

/**
 * Creates the missing rank-level indexes of `table` for `n` features (after a load or an append). A level
 * already indexed is kept: found by its name's `_rank<k>_idx` ending, as a recreate's table is renamed
 * with its indexes' names unchanged. Each is a partial GiST index on `geom`.
 */
export async function createRankIndexes(sql: Queryable, table: string, n: number): Promise<void> {
  const t = safeTable(table);
  const levels = indexedLevels(n);
  if (levels === 0) return;
  const names = (await sql`select indexname from pg_indexes where tablename = ${table}`).map((r) =>
    String(r.indexname),
  );
  for (let k = 1; k <= levels; k++) {
    if (names.some((name) => name.endsWith(`_rank${k}_idx`))) continue;
    await sql.unsafe(
      `create index ${t}_rank${k}_idx on ${t} using gist (geom) where ${rankPredicateText(k)}`,
    );
  }
}
