import type { Db } from '#lib/db/index.ts';
import { HttpError } from '#lib/errors.ts';
import { appendGeodataset, recreateGeodataset } from '#lib/geodatasets/write/write.ts';
import { startHeartbeat } from '#lib/jobs/heartbeat.ts';
import { invokeAsync } from '#lib/jobs/invoke.ts';
import { log } from '#lib/log.ts';
import { FeatureStream } from './featureStream.ts';
import { deleteObject, getObjectStream, requireBucket } from './s3.ts';
import { jobIdOfKey, maxUploadBytes, type UploadInput, uploadKey } from './upload.ts';

/**
 * Progress into the job row without ever waiting for it: at most one update in flight, at most one a
 * second. On the embedded database a transaction holds the whole database, so an update made during the
 * ingest lands only after its commit; `flush` waits for it before the final state is written.
 */
class Progress {
  private inFlight: Promise<void> | null = null;
  private last = 0;

  constructor(
    private readonly db: Db,
    private readonly jobId: string,
  ) {}

  report(processed: number): void {
    const now = Date.now();
    if (this.inFlight || now - this.last < 1000) return;
    this.last = now;
    this.inFlight = this.db.sql`
      update jobs set processed = ${processed}, heartbeat_at = now()
      where id = ${this.jobId}::uuid and state = 'running'`
      .then(
        () => undefined,
        () => undefined,
      )
      .finally(() => {
        this.inFlight = null;
      });
  }

  async flush(): Promise<void> {
    await this.inFlight;
  }
}

/** The error a job records: the message, with the byte offset of the feature it names when known. */
export function describeFailure(
  e: unknown,
  stream: FeatureStream | undefined,
): { message: string; featureIndex?: number; byteOffset?: number } {
  const message = (e as Error)?.message ?? String(e);
  const extra = e instanceof HttpError ? e.extra : {};
  let featureIndex = typeof extra.featureIndex === 'number' ? extra.featureIndex : undefined;
  let byteOffset = typeof extra.byteOffset === 'number' ? extra.byteOffset : undefined;
  const m = /^Features? (\d+)/.exec(message);
  if (featureIndex === undefined && m) featureIndex = Number(m[1]);
  if (byteOffset === undefined && featureIndex !== undefined) byteOffset = stream?.byteOffsetOf(featureIndex);
  if (byteOffset !== undefined && !/\bbyte \d/.test(message)) {
    const at = ` (feature ${featureIndex} starts at byte ${byteOffset} of the file)`;
    return { message: message.replace(/\.?$/, `${at}.`), featureIndex, byteOffset };
  }
  return { message, featureIndex, byteOffset };
}

/**
 * The ingest of one uploaded object (an `s3:ObjectCreated` event): claims the upload job the key names,
 * streams the object through `FeatureStream` into exactly the recreate/append of a request body (same
 * validation, derived columns, field_stats, one transaction), records the outcome and deletes the object.
 *
 * Idempotent under AWS's retries: only an `awaiting_upload` job is claimed, a `queued` one (the reaper
 * re-runs an ingest whose function died, docs/uploads.md#stuck-jobs), or a `running` one whose previous
 * attempt must be dead (started longer ago than a Lambda can run); a retry of a finished job
 * only removes a left-over object. Returns the job's final state, or 'skipped'.
 */
export async function ingestUpload(db: Db, bucket: string, key: string): Promise<string> {
  const jobId = jobIdOfKey(key);
  if (!jobId) {
    log('warn', 'upload ingest: an object that names no upload job', { bucket, key });
    return 'skipped';
  }
  const [row] = await db.sql`
    update jobs set state = 'running', started_at = now(), heartbeat_at = now(), attempts = attempts + 1,
      processed = 0, total = null, error = null
    where id = ${jobId}::uuid and kind = 'upload'
      and (state in ('awaiting_upload', 'queued')
        or (state = 'running' and started_at < now() - interval '16 minutes'))
    returning input`;
  if (!row) {
    const [job] = await db.sql`select state from jobs where id = ${jobId}::uuid`;
    if (!job || job.state === 'succeeded' || job.state === 'failed') await removeObject(bucket, key);
    return 'skipped';
  }
  const input = row.input as UploadInput;
  const progress = new Progress(db, jobId);
  const stopHeartbeat = startHeartbeat(db.sql, jobId);
  let stream: FeatureStream | undefined;
  let body: AsyncIterable<Uint8Array> | undefined;
  try {
    const max = maxUploadBytes();
    const object = await getObjectStream(bucket, key);
    body = object.body;
    if (object.size !== undefined && object.size > max) {
      throw new HttpError(
        413,
        `The file (${object.size} bytes) is larger than the upload limit of ${max} bytes.`,
      );
    }
    stream = new FeatureStream(body, { maxBytes: max, onProgress: (n) => progress.report(n) });
    const write = input.action === 'append' ? appendGeodataset : recreateGeodataset;
    const result = await write(db, stream, input.options);
    await stopHeartbeat();
    await progress.flush();
    await db.sql`
      update jobs set state = 'succeeded', result = ${db.sql.json(result as any)},
        processed = ${result.added}, total = ${result.added}, finished_at = now()
      where id = ${jobId}::uuid`;
    return 'succeeded';
  } catch (e) {
    (body as { destroy?: () => void } | undefined)?.destroy?.();
    const failure = describeFailure(e, stream);
    if (!(e instanceof HttpError)) log('error', 'upload ingest failed', { jobId, error: failure.message });
    await stopHeartbeat();
    await progress.flush();
    const { featureIndex, byteOffset } = failure;
    const detail = featureIndex === undefined ? null : { featureIndex, byteOffset: byteOffset ?? null };
    await db.sql`
      update jobs set state = 'failed', error = ${failure.message},
        result = ${detail ? db.sql.json(detail) : null},
        processed = ${stream?.count ?? 0}, finished_at = now()
      where id = ${jobId}::uuid`;
    return 'failed';
  } finally {
    await removeObject(bucket, key);
  }
}

async function removeObject(bucket: string, key: string): Promise<void> {
  try {
    await deleteObject(bucket, key);
  } catch (e) {
    // The bucket's lifecycle rule removes what is left (serverless.yml).
    log('warn', 'upload ingest: could not delete the object', { bucket, key, error: (e as Error).message });
  }
}

/**
 * Starts the ingest of upload job `jobId` again (the reaper's re-run, docs/uploads.md#stuck-jobs): invokes
 * the ingest function with the `s3:ObjectCreated` event of the job's object, which a dead attempt left in
 * place (only a finished ingest deletes it). The job must be `queued`.
 */
export async function rerunIngest(jobId: string): Promise<void> {
  const record = {
    eventName: 'ObjectCreated:Put',
    s3: { bucket: { name: requireBucket() }, object: { key: uploadKey(jobId) } },
  };
  await invokeAsync('jobIngestUpload', { Records: [record] });
}
