import type { Db } from '#lib/db/index.ts';
import { log } from '#lib/log.ts';
import { setting } from '#lib/settings.ts';

/** The reaper's thresholds (docs/uploads.md#stuck-jobs), each settable by environment. */
export interface ReapOptions {
  /** A running job whose heartbeat is older than this is dead (JOB_STALE_AFTER_S, default 120). */
  staleAfterS: number;
  /** A queued job not started within this is lost (JOB_QUEUED_STALE_AFTER_S, default 900). */
  queuedAfterS: number;
  /** Attempts a re-runnable job (an upload ingest) gets in all (JOB_INGEST_MAX_ATTEMPTS, default 2: one re-run). */
  ingestMaxAttempts: number;
}

export function reapOptions(): ReapOptions {
  return {
    staleAfterS: setting('JOB_STALE_AFTER_S'),
    queuedAfterS: setting('JOB_QUEUED_STALE_AFTER_S'),
    ingestMaxAttempts: setting('JOB_INGEST_MAX_ATTEMPTS'),
  };
}

export interface ReapResult {
  /** Jobs marked failed. */
  failed: string[];
  /** Jobs queued again and re-invoked. */
  retried: string[];
}

/** Starts job `id` of a re-runnable kind again (it is `queued` when called). */
export type Rerun = (id: string) => Promise<void>;

/**
 * Ends the jobs whose function died (docs/uploads.md#stuck-jobs):
 * - a job of a kind in `rerun` (only kinds whose dead attempt left nothing behind: the upload ingest, one
 *   transaction) whose heartbeat went stale and that has attempts left is set back to `queued` and
 *   started again by `rerun[kind]`;
 * - any other running job with a stale heartbeat is failed, saying so;
 * - a queued job that no function started in time is failed, saying so.
 * Each update re-checks the state, so a job that finishes meanwhile is left alone.
 */
export async function reapStaleJobs(
  db: Db,
  rerun: Record<string, Rerun> = {},
  opts: ReapOptions = reapOptions(),
): Promise<ReapResult> {
  const { sql } = db;
  const stale = opts.staleAfterS;
  const retried: string[] = [];
  const failed: string[] = [];
  for (const [kind, start] of Object.entries(rerun)) {
    const retry = await sql`
      update jobs set state = 'queued', heartbeat_at = now(), processed = null, total = null,
        error = ${`Re-run after its function stopped responding (no heartbeat for over ${stale} s).`}
      where kind = ${kind} and state = 'running' and attempts < ${opts.ingestMaxAttempts}
        and coalesce(heartbeat_at, started_at, created_at) < now() - make_interval(secs => ${stale})
      returning id`;
    for (const { id } of retry) {
      try {
        await start(id);
        retried.push(id);
      } catch (e) {
        await sql`
          update jobs set state = 'failed', finished_at = now(),
            error = ${`The job stopped responding and could not be started again: ${(e as Error).message}`}
          where id = ${id}::uuid and state = 'queued'`;
        failed.push(id);
      }
    }
  }
  const dead = await sql`
    update jobs set state = 'failed', finished_at = now(),
      error = case when attempts > 1
        then ${`The job's function stopped responding (no heartbeat for over ${stale} s) in each of its attempts; nothing was kept. Start it again.`}
        else ${`The job's function stopped responding (no heartbeat for over ${stale} s). Start it again.`}
      end
    where state = 'running'
      and coalesce(heartbeat_at, started_at, created_at) < now() - make_interval(secs => ${stale})
    returning id`;
  const lost = await sql`
    update jobs set state = 'failed', finished_at = now(),
      error = ${`The job was never started (queued for over ${opts.queuedAfterS} s); start it again.`}
    where state = 'queued'
      and coalesce(heartbeat_at, created_at) < now() - make_interval(secs => ${opts.queuedAfterS})
    returning id`;
  for (const r of [...dead, ...lost]) failed.push(r.id);
  if (failed.length || retried.length) log('warn', 'stale jobs reaped', { failed, retried });
  return { failed, retried };
}
