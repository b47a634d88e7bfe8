import type { Fragment } from '#lib/db/fragments.ts';
import type { Queryable } from '#lib/db/index.ts';

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
