import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { setting } from '#lib/settings.ts';
import { uploadBucket } from './bucket.ts';

/**
 * The upload bucket and its S3 client. On AWS the bucket comes from `UPLOAD_BUCKET` (set by serverless.yml)
 * and the client uses the function's role. Locally `S3_ENDPOINT` points at serverless-s3-local (s3rver):
 * path-style addressing and its fixed key pair (`S3RVER`, the only key it knows; `S3_ACCESS_KEY_ID` and
 * `S3_SECRET_ACCESS_KEY` override). Checksums only when an operation requires them: with the SDK's default
 * (`WHEN_SUPPORTED`) a presigned PUT would carry a CRC32 of an empty body that a client's upload cannot match.
 */
const clients = new Map<string, S3Client>();

/** The client for the current settings, made once per settings (a Lambda's never change; a test's may). */
export function s3(): S3Client {
  const endpoint = setting('S3_ENDPOINT');
  const region = setting('AWS_REGION');
  const accessKeyId = setting('S3_ACCESS_KEY_ID');
  const secretAccessKey = setting('S3_SECRET_ACCESS_KEY');
  const key = [endpoint ?? '', region, accessKeyId, secretAccessKey].join('\n');
  let client = clients.get(key);
  if (client) return client;
  client = new S3Client({
    region,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    ...(endpoint ? { endpoint, forcePathStyle: true, credentials: { accessKeyId, secretAccessKey } } : {}),
  });
  clients.set(key, client);
  return client;
}

export function requireBucket(): string {
  const b = uploadBucket();
  if (!b) throw new Error('UPLOAD_BUCKET is not set: uploads need an S3 bucket');
  return b;
}

/** Where uploaded files wait for their ingest (the bucket's ObjectCreated event is filtered on it). */
export const INCOMING_PREFIX = 'incoming/';
/** Where oversized GeoJSON answers are written. */
export const RESPONSES_PREFIX = 'responses/';

/** A presigned PUT of `key`; with `size`, the length is signed too (S3 refuses another length). */
export async function presignPut(
  key: string,
  expiresInSeconds: number,
  size?: number,
): Promise<{ url: string; headers: Record<string, string> }> {
  const cmd = new PutObjectCommand({
    Bucket: requireBucket(),
    Key: key,
    ...(size !== undefined ? { ContentLength: size } : {}),
  });
  const url = await getSignedUrl(s3(), cmd, { expiresIn: expiresInSeconds });
  return { url, headers: size !== undefined ? { 'Content-Length': String(size) } : {} };
}

/** A presigned GET of `key`, valid for `expiresInSeconds`. */
export function presignGet(key: string, expiresInSeconds: number): Promise<string> {
  return getSignedUrl(s3(), new GetObjectCommand({ Bucket: requireBucket(), Key: key }), {
    expiresIn: expiresInSeconds,
  });
}

export async function putObject(key: string, body: string | Buffer, contentType: string): Promise<void> {
  await s3().send(
    new PutObjectCommand({ Bucket: requireBucket(), Key: key, Body: body, ContentType: contentType }),
  );
}

/** The object's body as a byte stream, and its length. */
export async function getObjectStream(
  bucket: string,
  key: string,
): Promise<{ body: AsyncIterable<Uint8Array>; size: number | undefined }> {
  const res = await s3().send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return { body: res.Body as unknown as AsyncIterable<Uint8Array>, size: res.ContentLength };
}

export async function deleteObject(bucket: string, key: string): Promise<void> {
  await s3().send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
}
