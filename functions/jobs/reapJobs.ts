import { getDb } from '#lib/db/index.ts';
import { asyncHandler } from '#lib/jobs/asyncHandler.ts';
import { reapStaleJobs } from '#lib/jobs/reaper.ts';
import { sweepExports } from '#lib/uploads/exportSweep.ts';
import { rerunIngest } from '#lib/uploads/ingest.ts';

/**
 * Scheduled (and invokable by hand): fails the jobs whose function died and re-runs a dead upload ingest
 * (docs/uploads.md#stuck-jobs), then deletes the export jobs past their reuse window with their objects
 * (docs/geodatasets-read.md, "Export jobs").
 */
export const handler = asyncHandler('jobReapStale', async () => {
  const db = getDb();
  const reaped = await reapStaleJobs(db, { upload: rerunIngest });
  const exports = await sweepExports(db);
  return { ...reaped, exportsSwept: exports };
});
