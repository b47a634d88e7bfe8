import type { Queryable } from '#lib/db/index.ts';

/**
 * The lifecycle of a job that an event starts rather than `runJob` (lib/jobs/jobs.ts): the upload ingest,
 * claimed by the `s3:ObjectCreated` event of its file. It is created `awaiting_upload`, claimed for an
 * attempt (`running`), reports its progress as its heartbeat, and ends `succeeded` or `failed`; one whose
 * file never came is failed by `expireAwaiting` (docs/uploads.md).
 */

/**
 * Claims job `id` of `kind` for an attempt that starts from the beginning: from `awaiting_upload` or
 * `queued` (the reaper re-queues a dead attempt, docs/uploads.md#stuck-jobs), or from `running` when that
 * attempt started longer ago than a Lambda can run (16 minutes: it must be dead). Its progress and error
 * are cleared. Returns the job's input, or null when it is not claimable.
 */
export async function claimAttempt(sql: Queryable, id: string, kind: string): Promise<unknown | null> {
  const [row] = await sql`
    update jobs set state = 'running', started_at = now(), heartbeat_at = now(), attempts = attempts + 1,
      processed = 0, total = null, error = null
    where id = ${id}::uuid and kind = ${kind}
      and (state in ('awaiting_upload', 'queued')
        or (state = 'running' and started_at < now() - interval '16 minutes'))
    returning input`;
  return row ? row.input : null;
}

/** Records `processed` for the running job `id`, which is also its heartbeat. */
export async function beatWithProgress(sql: Queryable, id: string, processed: number): Promise<void> {
  await sql`
    update jobs set processed = ${processed}, heartbeat_at = now()
    where id = ${id}::uuid and state = 'running'`;
}

/**
 * How an attempt ended: `succeeded` with its result, or `failed` with its message and `detail` (where in
 * its input it failed, structured, shown as the job's `result`), and the features it processed.
 */
export type AttemptEnd =
  | { state: 'succeeded'; result: unknown; processed: number; total: number }
  | { state: 'failed'; error: string; detail: Record<string, unknown> | null; processed: number };

/** Records the end of the attempt claimed by `claimAttempt`. */
export async function finishAttempt(sql: Queryable, id: string, end: AttemptEnd): Promise<void> {
  if (end.state === 'succeeded') {
    await sql`
      update jobs set state = 'succeeded', result = ${sql.json(end.result as any)},
        processed = ${end.processed}, total = ${end.total}, finished_at = now()
      where id = ${id}::uuid`;
    return;
  }
  await sql`
    update jobs set state = 'failed', error = ${end.error},
      result = ${end.detail ? sql.json(end.detail as any) : null},
      processed = ${end.processed}, finished_at = now()
    where id = ${id}::uuid`;
}

/**
 * Fails the `awaiting_upload` jobs of `kind` whose `input.expiresAt` plus `graceSeconds` has passed, with
 * `error`. Returns how many it failed.
 */
export async function expireAwaiting(
  sql: Queryable,
  kind: string,
  graceSeconds: number,
  error: string,
): Promise<number> {
  const rows = await sql`
    update jobs set state = 'failed', finished_at = now(), error = ${error}
    where kind = ${kind} and state = 'awaiting_upload'
      and (input->>'expiresAt')::timestamptz + make_interval(secs => ${graceSeconds}) < now()
    returning id`;
  return rows.length;
}
