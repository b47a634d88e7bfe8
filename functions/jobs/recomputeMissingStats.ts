import { getDb } from '#lib/db/index.ts';
import { recomputeMissingStats } from '#lib/geodatasets/manage.ts';
import { asyncHandler } from '#lib/jobs/asyncHandler.ts';

/** Scheduled (and invokable by hand): computes field_stats for every geodataset that lacks them. */
export const handler = asyncHandler('jobRecomputeMissingStats', async () => {
  const { recomputed, failed } = await recomputeMissingStats(getDb());
  return { status: failed.length ? 'partial' : 'success', recomputed, failed };
});
