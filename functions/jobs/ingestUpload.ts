import { getDb } from '#lib/db/index.ts';
import { asyncHandler } from '#lib/jobs/asyncHandler.ts';
import { ingestUpload } from '#lib/uploads/ingest.ts';
import { expireUploads } from '#lib/uploads/upload.ts';

interface S3Record {
  eventName?: string;
  s3?: { bucket?: { name?: string }; object?: { key?: string } };
}

/** S3 event keys are URL-encoded with `+` for spaces. */
const decodeKey = (k: string) => decodeURIComponent(k.replace(/\+/g, ' '));

/**
 * The upload bucket's `s3:ObjectCreated` event (prefix `incoming/`): ingests each uploaded file into its
 * upload job's geodataset. Its schedule fails the upload jobs whose file never came.
 */
export const handler = asyncHandler('jobIngestUpload', async (event: { Records?: S3Record[] }) => {
  const db = getDb();
  if (!Array.isArray(event?.Records)) return { expired: await expireUploads(db.sql) };
  const states: string[] = [];
  for (const r of event.Records) {
    const bucket = r.s3?.bucket?.name;
    const key = r.s3?.object?.key;
    if (!String(r.eventName ?? '').startsWith('ObjectCreated') || !bucket || !key) continue;
    states.push(await ingestUpload(db, bucket, decodeKey(key)));
  }
  return { states };
});
