import { JOB_RESUME_WAIT_MS, withResumeWait } from '#lib/db/resumeWait.ts';
import { log } from '#lib/log.ts';

/**
 * Wraps the handler of a function that runs asynchronously (an `Event` invocation, an S3 event, a
 * schedule): its failure is logged as one JSON line and answered as `{failed}`, never thrown.
 *
 * Nobody waits for such an answer. On Lambda a thrown error would make Lambda run the event twice more,
 * on top of the reaper's own re-run of a dead ingest (docs/uploads.md#stuck-jobs); under `npm start`,
 * serverless-offline runs an `Event` invocation without handling its failure, so a throw there ended the
 * whole local service (docs/connections.md).
 *
 * A job has minutes of Lambda time: its database calls wait up to `JOB_RESUME_WAIT_MS` for an auto-paused
 * Aurora to resume (lib/db/resumeWait.ts), where an API request waits 20 s.
 */
export function asyncHandler<E, R>(
  name: string,
  run: (event: E) => Promise<R>,
): (event: E) => Promise<R | { failed: string }> {
  return async (event: E) => {
    try {
      return await withResumeWait(JOB_RESUME_WAIT_MS, () => run(event));
    } catch (e) {
      const err = e as { message?: string; code?: string };
      log('error', 'async function failed', {
        function: name,
        error: String(err?.message ?? e),
        code: err?.code,
      });
      return { failed: String(err?.message ?? e) };
    }
  };
}
