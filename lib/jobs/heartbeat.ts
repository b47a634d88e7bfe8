import type { Queryable } from '#lib/db/index.ts';
import { setting } from '#lib/settings.ts';

/** Seconds between heartbeats of a running job (JOB_HEARTBEAT_S, default 30). */
export function heartbeatSeconds(): number {
  return setting('JOB_HEARTBEAT_S');
}

/**
 * Refreshes `heartbeat_at` of the running job `jobId` every `heartbeatSeconds()` until the returned stop
 * function is called (docs/uploads.md#stuck-jobs). Never waits on the database: at most one update is in
 * flight and a failed one is ignored (the next beat tries again). `stop` waits for the one in flight.
 */
export function startHeartbeat(sql: Queryable, jobId: string): () => Promise<void> {
  let inFlight: Promise<void> | null = null;
  const beat = () => {
    if (inFlight) return;
    inFlight = sql`
      update jobs set heartbeat_at = now() where id = ${jobId}::uuid and state = 'running'`
      .then(
        () => undefined,
        () => undefined,
      )
      .finally(() => {
        inFlight = null;
      });
  };
  const timer = setInterval(beat, heartbeatSeconds() * 1000);
  timer.unref?.();
  return async () => {
    clearInterval(timer);
    await inFlight;
  };
}
