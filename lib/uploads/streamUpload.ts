import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  PutObjectCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { HttpError } from '#lib/errors.ts';
import { log } from '#lib/log.ts';
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

/** `send`, with S3's failure made a 503. */
async function call<T>(send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (e) {
    throw storageFailed(e);
  }
}

/**
 * Writes `pieces` to `key` of the upload bucket as they are produced: a multipart upload of 5 MiB parts,
 * one part in flight while the next is gathered (memory about two parts, whatever the object's size), or a
 * single PUT when the whole object fits in one part. If `pieces` fails, its error is raised as it is (a
 * statement timeout stays a 503, a refused value a 400); if S3 fails, a 503 (`storageFailed`). Either way
 * the multipart upload is aborted first; an abort that fails too is logged, never raised over the cause
 * (the bucket's lifecycle rule clears an upload left incomplete).
 *
 * @example await uploadStream('responses/x.json', 'application/json', pieces)
 */
export async function uploadStream(
  key: string,
  contentType: string,
  pieces: AsyncIterable<string>,
): Promise<void> {
  const client = s3();
  const Bucket = requireBucket();
  let held: Buffer[] = [];
  let heldBytes = 0;
  let uploadId: string | undefined;
  const parts: { PartNumber: number; ETag: string }[] = [];
  let inFlight: Promise<void> = Promise.resolve();
  let failed: unknown;
  let nextPart = 1;

  const take = () => {
    const body = Buffer.concat(held);
    held = [];
    heldBytes = 0;
    return body;
  };
  const sendPart = async (PartNumber: number, Body: Buffer) => {
    const r = await call(() =>
      client.send(new UploadPartCommand({ Bucket, Key: key, UploadId: uploadId, PartNumber, Body })),
    );
    parts.push({ PartNumber, ETag: r.ETag ?? '' });
  };
  const flush = async () => {
    uploadId ??= (
      await call(() =>
        client.send(new CreateMultipartUploadCommand({ Bucket, Key: key, ContentType: contentType })),
      )
    ).UploadId;
    await inFlight;
    if (failed) throw failed;
    // Recorded, not left rejected: the producer may be awaited meanwhile.
    inFlight = sendPart(nextPart++, take()).catch((e) => {
      failed = e;
    });
  };

  try {
    for await (const piece of pieces) {
      const b = Buffer.from(piece);
      held.push(b);
      heldBytes += b.length;
      if (heldBytes >= PART_BYTES) await flush();
    }
    if (uploadId === undefined) {
      const Body = take();
      await call(() =>
        client.send(new PutObjectCommand({ Bucket, Key: key, Body, ContentType: contentType })),
      );
      return;
    }
    if (heldBytes > 0) await flush();
    await inFlight;
    if (failed) throw failed;
    parts.sort((a, b) => a.PartNumber - b.PartNumber);
    await call(() =>
      client.send(
        new CompleteMultipartUploadCommand({
          Bucket,
          Key: key,
          UploadId: uploadId,
          MultipartUpload: { Parts: parts },
        }),
      ),
    );
  } catch (e) {
    await inFlight;
    if (uploadId !== undefined) {
      try {
        await client.send(new AbortMultipartUploadCommand({ Bucket, Key: key, UploadId: uploadId }));
      } catch (abortError) {
        log('warn', 'streamed upload: the abort failed too', {
          key,
          error: (abortError as Error)?.message,
        });
      }
    }
    throw e;
  }
}
