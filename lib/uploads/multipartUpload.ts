import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { requireBucket, s3 } from './s3.ts';

/** S3's smallest part (every part but the last): the most a writer holds before it sends one. */
export const PART_BYTES = 5 * 1024 * 1024;

/**
 * An object of the upload bucket written as it is produced: text pieces are gathered until a part of at
 * least `PART_BYTES` is ready, which is sent while the next one is gathered; at most one part is in
 * flight (a writer with a full part waits for the one before), so memory stays at about two parts. `complete()` sends the rest as the last part and assembles the object;
 * `abort()` discards the parts (best effort: the bucket's lifecycle rule also aborts an upload left
 * incomplete for a day, e.g. by a function that died).
 *
 * @example const up = await MultipartUpload.start(key, 'application/json'); await up.write(text); await up.complete();
 */
export class MultipartUpload {
  private pending: string[] = [];
  private pendingBytes = 0;
  private readonly parts: { ETag: string; PartNumber: number }[] = [];
  private sent = 0;
  private inFlight: Promise<void> = Promise.resolve();
  private failure: unknown;

  private constructor(
    private readonly bucket: string,
    readonly key: string,
    private readonly uploadId: string,
  ) {}

  static async start(key: string, contentType: string): Promise<MultipartUpload> {
    const bucket = requireBucket();
    const res = await s3().send(
      new CreateMultipartUploadCommand({ Bucket: bucket, Key: key, ContentType: contentType }),
    );
    if (!res.UploadId) throw new Error(`S3 gave no upload id for ${key}`);
    return new MultipartUpload(bucket, key, res.UploadId);
  }

  /** Adds `text` (its byte length, when the caller knows it); sends a part when one is full. */
  async write(text: string, bytes = Buffer.byteLength(text)): Promise<void> {
    this.pending.push(text);
    this.pendingBytes += bytes;
    if (this.pendingBytes >= PART_BYTES) await this.flush();
  }

  /** Starts sending the gathered pieces as the next part, once the part before it has been sent. */
  private async flush(): Promise<void> {
    const body = Buffer.from(this.pending.join(''), 'utf8');
    this.pending = [];
    this.pendingBytes = 0;
    await this.settled();
    const PartNumber = ++this.sent;
    // Kept, not awaited: the caller gathers the next part meanwhile. A failure is raised by the next call.
    this.inFlight = s3()
      .send(
        new UploadPartCommand({
          Bucket: this.bucket,
          Key: this.key,
          UploadId: this.uploadId,
          PartNumber,
          Body: body,
        }),
      )
      .then(
        (res) => {
          this.parts.push({ ETag: res.ETag ?? '', PartNumber });
        },
        (e) => {
          this.failure ??= e;
        },
      );
  }

  /** Waits for the part in flight; throws its failure. */
  private async settled(): Promise<void> {
    await this.inFlight;
    if (this.failure) throw this.failure;
  }

  /** Sends what is left as the last part and assembles the object. */
  async complete(): Promise<void> {
    if (this.pendingBytes > 0 || this.sent === 0) await this.flush();
    await this.settled();
    await s3().send(
      new CompleteMultipartUploadCommand({
        Bucket: this.bucket,
        Key: this.key,
        UploadId: this.uploadId,
        MultipartUpload: { Parts: [...this.parts].sort((a, b) => a.PartNumber - b.PartNumber) },
      }),
    );
  }

  /** Discards the upload; never throws (the error that led here is the one to report). */
  async abort(): Promise<void> {
    this.pending = [];
    await this.inFlight;
    await s3()
      .send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: this.key, UploadId: this.uploadId }))
      .catch(() => {});
  }
}
