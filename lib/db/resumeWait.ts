import { AsyncLocalStorage } from 'node:async_hooks';
import { processWide } from '#lib/processWide.ts';
import { setting } from '#lib/settings.ts';

/**
 * How long a Data API call keeps being sent while Aurora Serverless v2 resumes from auto-pause
 * (`DatabaseResumingException`, lib/db/dataApi/retries.ts; docs/connections.md). An API function has
 * 29 s in all, so it waits up to 20 s (`DB_RESUME_WAIT_S`) and keeps the rest for its own work; a job or
 * the migration custom resource (minutes of Lambda time) runs under `withResumeWait(JOB_RESUME_WAIT_MS)`.
 */

/** A job's or the migration's wait for a resume: a resume commonly takes 15 s, longer after long pauses. */
export const JOB_RESUME_WAIT_MS = 120_000;

/** Process-wide (lib/processWide.ts): under `npm start` one function's pool serves the others' calls. */
const current = processWide(
  Symbol.for('mmgis-serverless.db.resumeWait'),
  () => new AsyncLocalStorage<number>(),
);

/** Runs `fn` with calls made under it waiting up to `ms` for a resume. */
export function withResumeWait<T>(ms: number, fn: () => Promise<T>): Promise<T> {
  return current.run(ms, fn);
}

/** The current call's wait for a resume, in milliseconds. */
export function resumeWaitMs(): number {
  return current.getStore() ?? setting('DB_RESUME_WAIT_S') * 1000;
}
