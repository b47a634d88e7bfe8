import type { Db, Queryable } from '#lib/db/index.ts';
import { badRequest, payloadTooLarge } from '#lib/errors.ts';
import { normalizeOptions } from '#lib/geodatasets/write/insertFeatures.ts';
import type { WriteOptions } from '#lib/geodatasets/write/write.ts';
import { expireAwaiting } from '#lib/jobs/attempts.ts';
import { createJob, failJob } from '#lib/jobs/jobs.ts';
import { toNumber } from '#lib/numbers.ts';
import { setting } from '#lib/settings.ts';
import { INCOMING_PREFIX, presignPut } from './s3.ts';

/** Seconds a presigned upload URL is valid (docs/uploads.md: 15 minutes). */
export const UPLOAD_URL_SECONDS = 15 * 60;
/**
 * How long after its URL expired an upload job still waits for its file: S3 checks the signature when a
 * PUT starts, so a large upload started just before expiry may arrive well after it (docs/uploads.md).
 */
export const UPLOAD_GRACE_SECONDS = 60 * 60;

/**
 * `MAX_UPLOAD_BYTES`, default 2 GiB: a file of 10,000,000 points (1.9 GB) fits, and its ingest (258 s
 * measured, docs/benchmarks.md) stays well inside the job's 900 s (docs/uploads.md).
 */
export function maxUploadBytes(): number {
  return setting('MAX_UPLOAD_BYTES');
}

/** What an upload job keeps in `jobs.input`. */
export interface UploadInput {
  action: 'recreate' | 'append';
  options: Required<WriteOptions>;
  size: number | null;
  expiresAt: string;
}

export function uploadKey(jobId: string): string {
  return `${INCOMING_PREFIX}${jobId}`;
}

const KEY = /^incoming\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

/** The job id an uploaded object's key names, or null for any other key. */
export function jobIdOfKey(key: string): string | null {
  return KEY.exec(key)?.[1] ?? null;
}

function declaredSize(v: unknown): number | null {
  if (v === undefined || v === null || v === '') return null;
  const n = toNumber(v);
  if (!Number.isSafeInteger(n) || n < 0) {
    throw badRequest(`'size' must be the file's length in bytes (a non-negative integer).`);
  }
  return n;
}

/**
 * POST /api/geodatasets/upload: checks the options exactly as recreate/append do, records an upload job
 * (`awaiting_upload`) and answers a presigned PUT of `incoming/<job id>` valid for 15 minutes. A declared
 * `size` above `MAX_UPLOAD_BYTES` is refused here (413) and signed into the URL otherwise.
 *
 * @example await createUpload(db, { name: 'rovers', startProp: 'time', size: 41523142 })
 */
export async function createUpload(db: Db, body: Record<string, unknown>) {
  const action = body.action ?? 'recreate';
  if (action !== 'recreate' && action !== 'append') {
    throw badRequest(
      `'action' must be 'recreate' or 'append' (got ${JSON.stringify(action)?.slice(0, 40)}).`,
    );
  }
  const options = normalizeOptions({
    name: body.name as string,
    startProp: body.startProp as string,
    endProp: body.endProp as string,
    groupIdProp: body.groupIdProp as string,
    featureIdProp: body.featureIdProp as string,
    filename: body.filename as string,
  });
  const size = declaredSize(body.size);
  const max = maxUploadBytes();
  if (size !== null && size > max) {
    throw payloadTooLarge(`The file (${size} bytes) is larger than the upload limit of ${max} bytes.`);
  }
  await expireUploads(db.sql);
  const expiresAt = new Date(Date.now() + UPLOAD_URL_SECONDS * 1000).toISOString();
  const input: UploadInput = { action, options, size, expiresAt };
  const job = await createJob(db.sql, 'upload', options.name, { ...input }, 'awaiting_upload');
  let signed: { url: string; headers: Record<string, string> };
  try {
    signed = await presignPut(uploadKey(job.id), UPLOAD_URL_SECONDS, size ?? undefined);
  } catch (e) {
    await failJob(db.sql, job.id, 'No upload URL could be made.');
    throw e;
  }
  return {
    job: { id: job.id, state: job.state },
    upload: { url: signed.url, method: 'PUT', headers: signed.headers, expiresAt, maxBytes: max },
  };
}

/**
 * Fails the upload jobs whose file never came: `awaiting_upload` past their URL's expiry plus the grace.
 * Runs when an upload is requested and on the ingest function's schedule. Returns how many it failed.
 */
export async function expireUploads(sql: Queryable, graceSeconds = UPLOAD_GRACE_SECONDS): Promise<number> {
  return expireAwaiting(sql, 'upload', graceSeconds, 'No file was uploaded before the upload URL expired.');
}
