import { Readable } from 'node:stream';
import { Upload } from '@aws-sdk/lib-storage';
import { HttpError } from '#lib/errors.ts';
import { requireBucket, s3 } from './s3.ts';

/** S3's smallest part (every part but the last). */
export const PART_BYTES = 5 * 1024 * 1024;

/** A failed S3 call of a streamed upload: 503 in our shape (the storage, not the request, failed). */
export function storageFailed(e: unknown): HttpError {
  return new HttpError(
    503,
    `The answer could not be written to storage (${(e as Error)?.message ?? e}); try again.`,
  );
}

/**
 * Writes `pieces` to `key` of the upload bucket as they are produced, with `@aws-sdk/lib-storage`: a
 * multipart upload of 5 MiB parts, one part in flight while the next is gathered (memory about two parts,
 * whatever the object's size), or a single PUT when the whole object fits in one part.
 *
 * If `pieces` fails, its own error is raised (a statement timeout stays a 503, a refused value a 400); if
 * S3 fails, a 503 (`storageFailed`). The parts of a failed upload are left to the bucket's lifecycle rule
 * (`AbortIncompleteMultipartUpload` after a day, serverless.yml): lib-storage's own abort, when it failed
 * too, raised the abort's error in place of the cause (a 500).
 *
 * @example await uploadStream('responses/x.json', 'application/json', pieces)
 */
export async function uploadStream(
  key: string,
  contentType: string,
  pieces: AsyncIterable<string>,
): Promise<void> {
  let producerFailed: { error: unknown } | undefined;
  async function* watched() {
    try {
      yield* pieces;
    } catch (error) {
      producerFailed = { error };
      throw error;
    }
  }
  const upload = new Upload({
    client: s3(),
    params: { Bucket: requireBucket(), Key: key, Body: Readable.from(watched()), ContentType: contentType },
    partSize: PART_BYTES,
    queueSize: 1,
    leavePartsOnError: true,
  });
  try {
    await upload.done();
  } catch (e) {
    if (producerFailed) throw producerFailed.error;
    throw storageFailed(e);
  }
}
