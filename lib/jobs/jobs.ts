import { randomUUID } from 'node:crypto';
import type { Db, Queryable } from '#lib/db/index.ts';
import { notFound } from '#lib/errors.ts';
import { log } from '#lib/log.ts';
import { startHeartbeat } from './heartbeat.ts';
import { invokeAsync } from './invoke.ts';

/** `awaiting_upload`: an upload job (lib/uploads) whose file has not arrived yet. */
export type JobState = 'awaiting_upload' | 'queued' | 'running' | 'succeeded' | 'failed';

/** A job as GET /api/geodatasets/jobs/:id shows it (docs/contract.md#4-geodatasets-api). */
export interface JobView {
  id: string;
  kind: string;
  name: string | null;
  state: JobState;
  error?: string;
  result?: unknown;
  /** Features processed so far and the total once known (upload ingests). */
  processed?: number;
  total?: number;
  createdAt: string;
  finishedAt?: string;
}

function toJobView(r: Record<string, any>): JobView {
  const v: JobView = {
    id: r.id,
    kind: r.kind,
    name: r.name ?? null,
    state: r.state,
    createdAt: new Date(r.created_at).toISOString(),
  };
  if (r.error) v.error = r.error;
  if (r.result != null) v.result = r.result;
  if (r.processed != null) v.processed = Number(r.processed);
  if (r.total != null) v.total = Number(r.total);
  if (r.finished_at) v.finishedAt = new Date(r.finished_at).toISOString();
  return v;
}

/** Records a job; `state` 'succeeded' records one that had nothing to do. */
export async function createJob(
  sql: Queryable,
  kind: string,
  name: string | null,
  input: Record<string, unknown> = {},
  state: JobState = 'queued',
): Promise<JobView> {
  const id = randomUUID();
  const done = state === 'succeeded' || state === 'failed';
  const [row] = await sql`
    insert into jobs (id, kind, name, state, input, finished_at)
    values (${id}::uuid, ${kind}, ${name}, ${state}, ${sql.json(input as any)}, ${done ? new Date() : null})
    returning *`;
  return toJobView(row);
}

/** The job `id` (a UUID: the endpoint schema's `format`; 404 if unknown). */
export async function getJob(sql: Queryable, id: string): Promise<JobView> {
  const [row] = await sql`select * from jobs where id = ${id}::uuid`;
  if (!row) throw notFound(`No job with id '${id}'.`);
  return toJobView(row);
}

/**
 * Records a job and invokes its function asynchronously (`InvocationType: 'Event'`). If the invocation
 * cannot be made, the job is marked failed and the error rethrown.
 */
export async function startJob(
  db: Db,
  fnName: string,
  kind: string,
  name: string | null,
  input: Record<string, unknown> = {},
): Promise<JobView> {
  const job = await createJob(db.sql, kind, name, input);
  try {
    await invokeAsync(fnName, { jobId: job.id });
  } catch (e) {
    await finishJob(db.sql, job.id, 'failed', null, `The job could not be started: ${(e as Error).message}`);
    throw e;
  }
  return job;
}

async function finishJob(sql: Queryable, id: string, state: JobState, result: unknown, error: string | null) {
  await sql`
    update jobs set state = ${state}, result = ${result == null ? null : sql.json(result as any)},
      error = ${error}, finished_at = now()
    where id = ${id}::uuid`;
}

/** Job `id` failed with `error` before it ran; with `onlyIf`, only while it is still in that state. */
export async function failJob(
  sql: Queryable,
  id: string,
  error: string,
  { onlyIf }: { onlyIf?: JobState } = {},
): Promise<void> {
  await sql`
    update jobs set state = 'failed', error = ${error}, finished_at = now()
    where id = ${id}::uuid and ${onlyIf ? sql`state = ${onlyIf}` : sql`true`}`;
}

/** The state of job `id`, or null when there is no such job. */
export async function jobState(sql: Queryable, id: string): Promise<JobState | null> {
  const [row] = await sql`select state from jobs where id = ${id}::uuid`;
  return row ? row.state : null;
}

/** Records `processed` of `total` features for job `id` (its view's progress). */
export async function recordProgress(sql: Queryable, id: string, processed: number, total: number) {
  await sql`update jobs set processed = ${processed}, total = ${total} where id = ${id}::uuid`;
}

/**
 * Runs the job `jobId` with `work({ name, input })`: queued → running → succeeded | failed. Idempotent
 * under retries: a job that is no longer queued is not run again, and the answer is then 'failed' whatever
 * its recorded state. While `work` runs, the job's heartbeat is
 * refreshed so that the reaper (lib/jobs/reaper.ts) can tell a live job from one whose function died.
 */
export async function runJob(
  db: Db,
  jobId: string,
  work: (job: { name: string | null; input: Record<string, unknown> }) => Promise<unknown>,
): Promise<JobState> {
  const [row] = await db.sql`
    update jobs set state = 'running', started_at = now(), heartbeat_at = now(), attempts = attempts + 1
    where id = ${jobId}::uuid and state = 'queued'
    returning name, input`;
  if (!row) return 'failed';
  const stopHeartbeat = startHeartbeat(db.sql, jobId);
  try {
    const result = await work({ name: row.name, input: row.input ?? {} }).finally(stopHeartbeat);
    await finishJob(db.sql, jobId, 'succeeded', result ?? null, null);
    return 'succeeded';
  } catch (e) {
    const message = (e as Error)?.message ?? String(e);
    log('error', 'job failed', { jobId, error: message });
    await finishJob(db.sql, jobId, 'failed', null, message);
    return 'failed';
  }
}
