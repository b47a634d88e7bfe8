import type { Db } from '#lib/db/index.ts';
import { log } from '#lib/log.ts';
import { uploadBucket } from './bucket.ts';
import { EXPORT_KIND, exportReuseSeconds } from './exportRule.ts';

/**
 * The end of an export (docs/geodatasets-read.md, "Export jobs", "Deletion"): its job row and its object
 * in the upload bucket are deleted once its reuse window (`EXPORT_REUSE_SECONDS`) has passed, by the
 * scheduled reaper (`jobReapStale`), and at once when its layer is removed. The row goes first: without it
 * no presigned URL of the object is made again.
 */

/** Rows deleted per statement of a sweep (a sweep repeats until none is left). */
const SWEEP_BATCH = 500;

/**
 * Deletes the objects of deleted export jobs: a finished export's, and the one a running export may be
 * writing (its key is the job's). A failed delete is logged; the bucket's one-day rule on `responses/`
 * remains.
 */
async function deleteObjects(rows: readonly Record<string, any>[]): Promise<number> {
  const bucket = uploadBucket();
  if (!bucket || rows.length === 0) return 0;
  const { deleteObject } = await import('./s3.ts');
  const { exportObjectKey } = await import('./export.ts');
  const keys = new Set(rows.flatMap((r) => [exportObjectKey(r.id), r.key].filter(Boolean)));
  let deleted = 0;
  for (const key of keys) {
    try {
      await deleteObject(bucket, key);
      deleted++;
    } catch (e) {
      log('error', 'export object not deleted', { key, error: (e as Error)?.message ?? String(e) });
    }
  }
  return deleted;
}

export interface SweepResult {
  /** Export jobs deleted. */
  jobs: number;
  /** Their objects deleted. */
  objects: number;
}

/**
 * Deletes the export jobs (succeeded or failed) that finished more than `EXPORT_REUSE_SECONDS` ago, and
 * their objects. Run by the scheduled reaper (functions/jobs/reapJobs.ts).
 */
export async function sweepExports(db: Db, reuseSeconds = exportReuseSeconds()): Promise<SweepResult> {
  const out: SweepResult = { jobs: 0, objects: 0 };
  for (;;) {
    const rows = await db.sql`
      delete from jobs where id in (
        select id from jobs
        where kind = ${EXPORT_KIND} and state in ('succeeded', 'failed')
          and finished_at < now() - make_interval(secs => ${reuseSeconds})
        limit ${SWEEP_BATCH})
      returning id, result->>'key' as key`;
    out.jobs += rows.length;
    out.objects += await deleteObjects(rows);
    if (rows.length < SWEEP_BATCH) break;
  }
  if (out.jobs) log('info', 'finished exports swept', { ...out });
  return out;
}

/**
 * Deletes every export job of the removed layer `name` (any state), and their objects: called once the
 * removal has committed. A layer created since under the same name keeps its own exports (their
 * `layerId` is its id). A running export of the removed layer fails at its next statement (its table is
 * gone), or, when it had ended its reading, deletes the object it wrote (functions/jobs/exportGeodataset.ts).
 */
export async function removeLayerExports(db: Db, name: string): Promise<SweepResult> {
  const rows = await db.sql`
    delete from jobs
    where kind = ${EXPORT_KIND} and name = ${name}
      and (input->>'layerId') is distinct from (select id::text from geodatasets where name = ${name})
    returning id, result->>'key' as key`;
  return { jobs: rows.length, objects: await deleteObjects(rows) };
}

/**
 * Whether the layer export job `jobId` read still exists (the same catalog row: a layer created since
 * under its name is another layer). False between a removal's commit and `removeLayerExports`, so the
 * job's endpoint answers 410 rather than a fresh URL even then.
 */
export async function exportLayerPresent(db: Db, jobId: string): Promise<boolean> {
  const [row] = await db.sql`
    select exists (
      select 1 from jobs j join geodatasets g on g.name = j.name
      where j.id = ${jobId}::uuid
        and (j.input->>'layerId' is null or g.id::text = j.input->>'layerId')) as present`;
  return row.present === true;
}

/**
 * After an export's object is written: when its job row is gone meanwhile (its layer was removed, and
 * `removeLayerExports` ran before the object existed), deletes the object and answers true.
 */
export async function discardIfRemoved(db: Db, jobId: string): Promise<boolean> {
  const [row] = await db.sql`select 1 as present from jobs where id = ${jobId}::uuid`;
  if (row) return false;
  await deleteObjects([{ id: jobId }]);
  return true;
}
