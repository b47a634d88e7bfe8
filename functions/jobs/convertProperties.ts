import { getDb } from '#lib/db/index.ts';
import { convertProperties } from '#lib/geodatasets/manage.ts';
import { asyncHandler } from '#lib/jobs/asyncHandler.ts';
import { runJob } from '#lib/jobs/jobs.ts';

/** Async job (invoked with `{jobId}`): converts the job's dataset's properties from json to jsonb. */
export const handler = asyncHandler('jobConvertProperties', async (event: { jobId: string }) => {
  const state = await runJob(getDb(), event.jobId, ({ name }) => convertProperties(getDb(), name ?? ''));
  return { jobId: event.jobId, state };
});
