import { randomUUID } from 'node:crypto';
import { envNumber } from '#lib/settings.ts';
import { uploadBucket } from '#lib/uploads/bucket.ts';
import { type HttpResponse, respond } from './response.ts';

/** `MAX_INLINE_RESPONSE_BYTES`, default 5 MiB (below Lambda's 6 MB response limit). */
export function maxInlineResponseBytes(): number {
  return envNumber('MAX_INLINE_RESPONSE_BYTES', 5 * 1024 * 1024, { integer: true });
}

/**
 * Seconds the presigned GET of an oversized answer stays valid (`RESPONSE_URL_SECONDS`, default 300), and
 * at least the gateway cache TTL plus a minute (`TILE_MAX_AGE`, set by the gateway-cache plugin): a 303
 * the stage cache keeps must not outlive its URL.
 */
export function responseUrlSeconds(): number {
  const ttl = envNumber('TILE_MAX_AGE', 0);
  return Math.max(envNumber('RESPONSE_URL_SECONDS', 300, { integer: true }), ttl > 0 ? ttl + 60 : 0);
}

/**
 * A JSON answer too large to return inline: written to the upload bucket (`responses/<uuid>.json`) and
 * answered 303 with a short-lived presigned GET in `Location` and a small JSON body saying so. Smaller
 * answers, non-200 answers, and any answer when no bucket is configured (in-process benches) pass through.
 *
 * @example return redirectIfLarge(rawJson(200, featureCollectionText))
 */
export async function redirectIfLarge(response: HttpResponse): Promise<HttpResponse> {
  if (response.statusCode !== 200 || typeof response.body !== 'string' || !uploadBucket()) return response;
  const limit = maxInlineResponseBytes();
  const text = response.body;
  // A UTF-8 byte is at most 3 per UTF-16 unit: most answers need no exact count.
  if (text.length * 3 <= limit) return response;
  const bytes = Buffer.byteLength(text);
  if (bytes <= limit) return response;
  // The S3 SDK (about 1 MB of bundle) loads only here: every worker of the read functions would otherwise
  // initialise it at start, which under a burst (a worker per concurrent request) delays every answer.
  const { presignGet, putObject, RESPONSES_PREFIX } = await import('#lib/uploads/s3.ts');
  const key = `${RESPONSES_PREFIX}${randomUUID()}.json`;
  await putObject(key, text, 'application/json; charset=utf-8');
  const seconds = responseUrlSeconds();
  const url = await presignGet(key, seconds);
  const expiresAt = new Date(Date.now() + seconds * 1000).toISOString();
  return respond(
    303,
    {
      status: 'success',
      message:
        `The answer is ${bytes} bytes, more than the ${limit} bytes returned inline: GET it from the URL ` +
        `in Location (valid until ${expiresAt}), or read it in pages with limit and offset.`,
      url,
      bytes,
      expiresAt,
    },
    { headers: { Location: url, 'Cache-Control': 'no-store' } },
  );
}
