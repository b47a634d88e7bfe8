import { getDb } from '#lib/db/index.ts';
import { recomputeStats } from '#lib/geodatasets/manage.ts';
import { asyncHandler } from '#lib/jobs/asyncHandler.ts';
import { runJob } from '#lib/jobs/jobs.ts';

/** Async job (invoked with `{jobId}`): recomputes the job's dataset's field_stats in one pass. */
export const handler = asyncHandler('jobRecomputeStats', async (event: { jobId: string }) => {
  const state = await runJob(getDb(), event.jobId, ({ name }) => recomputeStats(getDb(), name ?? ''));
  return { jobId: event.jobId, state };
});
