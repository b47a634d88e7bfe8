import type { Db } from '#lib/db/index.ts';
import { HttpError } from '#lib/errors.ts';
import { RefusedByDatabase } from '#lib/geodatasets/write/insertFeatures.ts';
import { appendGeodataset, recreateGeodataset } from '#lib/geodatasets/write/write.ts';
import { beatWithProgress, claimAttempt, finishAttempt } from '#lib/jobs/attempts.ts';
import { startHeartbeat } from '#lib/jobs/heartbeat.ts';
import { JobInputError } from '#lib/jobs/inputError.ts';
import { invokeAsync } from '#lib/jobs/invoke.ts';
import { jobState } from '#lib/jobs/jobs.ts';
import { log } from '#lib/log.ts';
import { GeojsonFileReader } from './geojsonFileReader.ts';
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
    this.inFlight = beatWithProgress(this.db.sql, this.jobId, processed)
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

/** Where in the file an error is, as the error carries it: the reader's, the write's, the database's. */
function positionOf(e: unknown): { featureIndex?: number; byteOffset?: number } {
  if (e instanceof JobInputError) return e.detail;
  if (e instanceof RefusedByDatabase) return { featureIndex: e.featureIndex };
  if (!(e instanceof HttpError)) return {};
  const { featureIndex, byteOffset } = e.extra;
  return {
    featureIndex: typeof featureIndex === 'number' ? featureIndex : undefined,
    byteOffset: typeof byteOffset === 'number' ? byteOffset : undefined,
  };
}

/**
 * The error a job records: the message and where in the file (feature index, byte offset). An error that
 * carries its byte offset names it in its message already; one that carries only its feature gets that
 * feature's offset from the reader, added to the message.
 */
export function describeFailure(
  e: unknown,
  stream: GeojsonFileReader | undefined,
): { message: string; featureIndex?: number; byteOffset?: number } {
  const message = (e as Error)?.message ?? String(e);
  const { featureIndex, byteOffset } = positionOf(e);
  if (featureIndex === undefined || byteOffset !== undefined) return { message, featureIndex, byteOffset };
  const found = stream?.byteOffsetOf(featureIndex);
  if (found === undefined) return { message, featureIndex, byteOffset: found };
  const at = ` (feature ${featureIndex} starts at byte ${found} of the file)`;
  return { message: message.replace(/\.?$/, `${at}.`), featureIndex, byteOffset: found };
}

/**
 * The ingest of one uploaded object (an `s3:ObjectCreated` event): claims the upload job the key names,
 * streams the object through `GeojsonFileReader` into exactly the recreate/append of a request body (same
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
  const claimed = await claimAttempt(db.sql, jobId, 'upload');
  if (!claimed) {
    const state = await jobState(db.sql, jobId);
    if (!state || state === 'succeeded' || state === 'failed') await removeObject(bucket, key);
    return 'skipped';
  }
  const input = claimed as UploadInput;
  const progress = new Progress(db, jobId);
  const stopHeartbeat = startHeartbeat(db.sql, jobId);
  let stream: GeojsonFileReader | undefined;
  let body: AsyncIterable<Uint8Array> | undefined;
  try {
    const max = maxUploadBytes();
    const object = await getObjectStream(bucket, key);
    body = object.body;
    if (object.size !== undefined && object.size > max) {
      throw new JobInputError(
        `The file (${object.size} bytes) is larger than the upload limit of ${max} bytes.`,
      );
    }
    stream = new GeojsonFileReader(body, { maxBytes: max, onProgress: (n) => progress.report(n) });
    const write = input.action === 'append' ? appendGeodataset : recreateGeodataset;
    const result = await write(db, stream, input.options);
    await stopHeartbeat();
    await progress.flush();
    await finishAttempt(db.sql, jobId, {
      state: 'succeeded',
      result,
      processed: result.added,
      total: result.added,
    });
    return 'succeeded';
  } catch (e) {
    (body as { destroy?: () => void } | undefined)?.destroy?.();
    const failure = describeFailure(e, stream);
    if (!(e instanceof HttpError || e instanceof JobInputError)) {
      log('error', 'upload ingest failed', { jobId, error: failure.message });
    }
    await stopHeartbeat();
    await progress.flush();
    const { featureIndex, byteOffset } = failure;
    const detail = featureIndex === undefined ? null : { featureIndex, byteOffset: byteOffset ?? null };
    await finishAttempt(db.sql, jobId, {
      state: 'failed',
      error: failure.message,
      detail,
      processed: stream?.count ?? 0,
    });
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
