import type { Db, Queryable } from '#lib/db/index.ts';
import { HttpError } from '#lib/errors.ts';
import { invokeAsync } from '#lib/jobs/invoke.ts';
import { createJob, failJob, getJob, type JobView, recordProgress } from '#lib/jobs/jobs.ts';
import { log } from '#lib/log.ts';
import { type ExportRefusal, exportRefusal } from './exportCaps.ts';
import {
  EXPORT_FUNCTION,
  EXPORT_KIND,
  type ExportInput,
  type ExportResult,
  exportRetrySeconds,
  exportReuseSeconds,
} from './exportRule.ts';
import { RESPONSES_PREFIX } from './s3.ts';
import { uploadStream } from './streamUpload.ts';

/**
 * Whole-layer GeoJSON exports (docs/geodatasets-read.md, "Export jobs"): a read too big to finish inside
 * one request is written to the upload bucket by an async job (`jobExportGeodataset`) that the caller
 * follows. One export per layer version and read (as parsed: exportKey.ts): a repeated request reuses the
 * running or finished one; new ones are capped (exportCaps.ts), and swept after their reuse window
 * (exportSweep.ts). The S3 and Lambda SDKs load with this module: the read function imports it only when a
 * read is handed over (lib/uploads/exportRule.ts holds the rule it checks first).
 */

/** Where the export of job `jobId` is written. */
export function exportObjectKey(jobId: string): string {
  return `${RESPONSES_PREFIX}exports/${jobId}.json`;
}

/**
 * The advisory lock that serializes the starts of new exports: the look-up of a reusable job, the caps'
 * count and the insert (two requests for one export start one job; racing reads cannot all pass a cap).
 */
const EXPORT_START_LOCK = 727277;

/**
 * The job of `input` that a request may follow: queued or running, succeeded recently enough, or failed
 * within `EXPORT_RETRY_SECONDS` (the read then answers its failure).
 */
async function reusable(sql: Queryable, key: string): Promise<string | undefined> {
  const [row] = await sql`
    select id from jobs
    where kind = ${EXPORT_KIND} and input->>'key' = ${key}
      and (state in ('queued', 'running')
        or (state = 'succeeded' and finished_at > now() - make_interval(secs => ${exportReuseSeconds()}))
        or (state = 'failed' and finished_at > now() - make_interval(secs => ${exportRetrySeconds()})))
    order by created_at desc
    limit 1`;
  return row?.id;
}

/** What a read handed over gets: the job to follow or answer, or a refusal by the caps (exportCaps.ts). */
export type ExportStart = { job: JobView; refused?: undefined } | { refused: ExportRefusal; job?: undefined };

/**
 * The export job of `input`: the running or recently finished one, else a new one, invoked
 * asynchronously, when the caps (exportCaps.ts) leave room for it; else the refusal. A failed export is
 * reused for `EXPORT_RETRY_SECONDS` (the read answers its failure), then the next request starts another.
 * Two requests at once start one job (an advisory lock held by the transaction that looks, counts and
 * inserts). When the job cannot be invoked it is marked failed and the request answered 503.
 */
export async function findOrStartExport(db: Db, input: ExportInput): Promise<ExportStart> {
  const found = await db.transaction(async (tx) => {
    await tx`select pg_advisory_xact_lock(${EXPORT_START_LOCK})`;
    const reused = await reusable(tx, input.key);
    if (reused) return { id: reused, created: false } as const;
    const refused = await exportRefusal(tx, input);
    if (refused) return { refused };
    const job = await createJob(tx, EXPORT_KIND, input.layer, { ...input });
    return { id: job.id, created: true };
  });
  if (found.refused) return { refused: found.refused };
  const { id, created } = found as { id: string; created: boolean };
  if (created) {
    try {
      await invokeAsync(EXPORT_FUNCTION, { jobId: id });
    } catch (e) {
      const message = `The export job could not be started (${(e as Error)?.message ?? e}); try again.`;
      await failJob(db.sql, id, message, { onlyIf: 'queued' });
      log('error', 'export job not started', { jobId: id, error: String((e as Error)?.message ?? e) });
      throw new HttpError(503, message);
    }
  }
  return { job: await getJob(db.sql, id) };
}

/**
 * Writes the export of job `jobId`: `pieces` (the FeatureCollection's text) streamed to its object as they
 * come (a multipart upload, memory about two 5 MiB parts); `features()` tells how many features the
 * pieces held once they ended. A failed S3 call raises the 503 of `uploadStream`, the job records its
 * message.
 */
export async function writeExport(
  jobId: string,
  pieces: AsyncIterable<string>,
  features: () => number,
): Promise<ExportResult> {
  const key = exportObjectKey(jobId);
  let bytes = 0;
  async function* counted() {
    for await (const piece of pieces) {
      bytes += Buffer.byteLength(piece);
      yield piece;
    }
  }
  await uploadStream(key, 'application/json; charset=utf-8', counted());
  return { key, bytes, features: features() };
}

/** Features written so far, for the job view's `processed` (set by the job as it runs). */
export async function recordExportProgress(sql: Queryable, jobId: string, processed: number, total: number) {
  await recordProgress(sql, jobId, processed, total);
}
