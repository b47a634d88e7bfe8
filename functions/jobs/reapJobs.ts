import { getDb } from '#lib/db/index.ts';
import { asyncHandler } from '#lib/jobs/asyncHandler.ts';
import { reapStaleJobs } from '#lib/jobs/reaper.ts';
import { rerunIngest } from '#lib/uploads/ingest.ts';

/**
 * Scheduled (and invokable by hand): fails the jobs whose function died and re-runs a dead upload ingest
 * (docs/uploads.md#stuck-jobs).
 */
export const handler = asyncHandler('jobReapStale', async () =>
  reapStaleJobs(getDb(), { upload: rerunIngest }),
);
