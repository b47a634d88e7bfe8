import { Readable } from 'node:stream';
import { Upload } from '@aws-sdk/lib-storage';
import { requireBucket, s3 } from './s3.ts';

/** S3's smallest part (every part but the last). */
export const PART_BYTES = 5 * 1024 * 1024;

/**
 * Writes `pieces` to `key` of the upload bucket as they are produced, with `@aws-sdk/lib-storage`: a
 * multipart upload of 5 MiB parts, one part in flight while the next is gathered (memory about two parts,
 * whatever the object's size), or a single PUT when the whole object fits in one part. If `pieces` or S3
 * fails, the upload is aborted and the error raised (the bucket's lifecycle rule also clears an upload a
 * dead function left incomplete).
 *
 * @example await uploadStream('responses/x.json', 'application/json', pieces)
 */
export async function uploadStream(
  key: string,
  contentType: string,
  pieces: AsyncIterable<string>,
): Promise<void> {
  const upload = new Upload({
    client: s3(),
    params: { Bucket: requireBucket(), Key: key, Body: Readable.from(pieces), ContentType: contentType },
    partSize: PART_BYTES,
    queueSize: 1,
    leavePartsOnError: false,
  });
  await upload.done();
}
