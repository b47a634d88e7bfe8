import { getDb } from '#lib/db/index.ts';
import { recomputeMissingStats } from '#lib/geodatasets/manage.ts';

/** Scheduled (and invokable by hand): computes field_stats for every geodataset that lacks them. */
export const handler = async () => {
  const { recomputed, failed } = await recomputeMissingStats(getDb());
  return { status: failed.length ? 'partial' : 'success', recomputed, failed };
};
