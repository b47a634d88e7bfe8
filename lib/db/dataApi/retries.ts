import { isServerError, isThrottlingError, isTransientError } from '@smithy/core/retry';

/**
 * When a Data API call is sent again (docs/connections.md). A statement runs once: a call is repeated
 * after an answer that proves nothing ran (throttled, the connection refused, Aurora resuming from zero
 * capacity); after a lost or failed answer (5xx, reset, timeout) only when running it twice is harmless:
 * `BeginTransaction`, `RollbackTransaction` and a read-only statement outside a transaction. A statement
 * in a transaction, a write and `CommitTransaction` are never repeated after such an answer: the caller
 * gets the error, not a second run. The SDK's own retries are off (`maxAttempts: 1`).
 */

type SdkError = Parameters<typeof isThrottlingError>[0] & { code?: string };

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

/** Aurora Serverless v2 resuming from zero capacity: nothing ran; it takes seconds. */
function isResuming(e: SdkError): boolean {
  return e.name === 'DatabaseResumingException';
}

/** The answer was lost or the service failed: the statement may or may not have run. */
export function outcomeUnknown(e: unknown): boolean {
  const err = e as SdkError;
  if (!err || typeof err !== 'object') return false;
  return isTransientError(err) || isServerError(err) || (err.$metadata?.httpStatusCode ?? 0) >= 500;
}

/**
 * Milliseconds to wait before attempt `attempt + 1`, or null to give up: three attempts (five while
 * Aurora resumes), backing off with jitter.
 */
export function retryWait(
  e: unknown,
  attempt: number,
  repeatable: boolean,
  random = Math.random,
): number | null {
  if (isResuming(e as SdkError)) return attempt < 5 ? 1000 * attempt : null;
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
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (e) {
      const wait = retryWait(e, attempt, repeatable);
      if (wait === null) throw e;
      await sleep(wait);
    }
  }
}
