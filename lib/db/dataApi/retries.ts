import { resumeWaitMs } from '../resumeWait.ts';
import { isServerError, isThrottlingError, isTransientError, type SdkError } from './sdkErrors.ts';

/**
 * When a Data API call is sent again (docs/connections.md). A statement runs once: a call is repeated
 * after an answer that proves nothing ran (throttled, the connection refused, Aurora resuming from zero
 * capacity); after a lost or failed answer (5xx, reset, timeout) only when running it twice is harmless:
 * `BeginTransaction`, `RollbackTransaction` and a read-only statement outside a transaction. A statement
 * in a transaction, a write and `CommitTransaction` are never repeated after such an answer: the caller
 * gets the error, not a second run. The SDK's own retries are off (`maxAttempts: 1`).
 */

/** Refused before anything was sent or run. */
export function didNotRun(e: unknown): boolean {
  const err = e as SdkError;
  if (!err || typeof err !== 'object') return false;
  return (
    isThrottlingError(err) ||
    err.code === 'ECONNREFUSED' ||
    err.code === 'ENOTFOUND' ||
    err.code === 'EAI_AGAIN' ||
    isResuming(err)
  );
}

/**
 * Aurora Serverless v2 resuming from zero capacity (auto-pause): the call was refused and nothing ran.
 * "A request was cancelled because the Aurora Serverless DB instance was paused. The Data API request
 * automatically resumes the DB instance. Wait a few seconds and try again." (RDS Data API reference,
 * `DatabaseResumingException`). A resume "can take up to 15 seconds" (AWS Database Blog, "Introducing
 * scaling to 0 capacity with Amazon Aurora Serverless v2"; Aurora user guide, "Scaling to Zero ACUs with
 * automatic pause and resume"), and may take longer: so the call is sent again for as long as
 * `resumeWaitMs()` allows (lib/db/resumeWait.ts: 20 s of an API request's 29 s, 120 s for a job or the
 * migration).
 */
export function isResuming(e: unknown): boolean {
  return (e as SdkError)?.name === 'DatabaseResumingException';
}

/** The waits between the calls of a resume: 1, 2, 3, 4 s, then every 5 s, each ±10 % (instances spread). */
export function resumeRetryWait(attempt: number, random = Math.random): number {
  return Math.round(1000 * Math.min(attempt, 5) * (0.9 + 0.2 * random()));
}

/** The answer was lost or the service failed: the statement may or may not have run. */
export function outcomeUnknown(e: unknown): boolean {
  const err = e as SdkError;
  if (!err || typeof err !== 'object') return false;
  return isTransientError(err) || isServerError(err) || (err.$metadata?.httpStatusCode ?? 0) >= 500;
}

/**
 * Milliseconds to wait before attempt `attempt + 1`, or null to give up: three attempts, backing off with
 * jitter; while Aurora resumes, as many as fit in `resumeBudgetMs` since the first call (`waitedMs`).
 */
export function retryWait(
  e: unknown,
  attempt: number,
  repeatable: boolean,
  random = Math.random,
  waitedMs = 0,
  resumeBudgetMs = resumeWaitMs(),
): number | null {
  if (isResuming(e)) {
    const wait = resumeRetryWait(attempt, random);
    return waitedMs + wait <= resumeBudgetMs ? wait : null;
  }
  if (attempt >= 3) return null;
  if (!didNotRun(e) && !(repeatable && outcomeUnknown(e))) return null;
  return Math.round(100 * 2 ** (attempt - 1) * (0.5 + random()));
}

/**
 * Only a statement that cannot change anything may run twice (after a lost answer, or through the oversize
 * path): a plain SELECT/WITH/VALUES/TABLE/SHOW without a write, a lock or a sequence step in its text. A
 * false "no" costs a retry; so the test leans that way.
 */
export function isRead(text: string): boolean {
  const t = text.trim().toLowerCase();
  return (
    /^(select|with|values|table|show)\b|^\(/.test(t) &&
    !/\b(insert|update|delete|merge|into|nextval|setval|set_config|pg_notify|lo_\w+|pg_advisory\w*|pg_try_advisory\w*|create|drop|alter|truncate|copy|call|lock|refresh)\b/.test(
      t,
    )
  );
}

const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

/** Runs `call`, again after the waits of `retryWait`. */
export async function withRetries<T>(call: () => Promise<T>, repeatable: boolean): Promise<T> {
  const started = Date.now();
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (e) {
      const wait = retryWait(e, attempt, repeatable, Math.random, Date.now() - started);
      if (wait === null) throw e;
      await sleep(wait);
    }
  }
}
