import { randomUUID } from 'node:crypto';
import { type HttpResponse, rawJson, respond } from '#lib/http/response.ts';
import type { JobView } from '#lib/jobs/jobs.ts';
import { setting, settingIfSet } from '#lib/settings.ts';
import { uploadBucket } from '#lib/uploads/bucket.ts';
import { exportResultOf, exportRetrySeconds } from '#lib/uploads/exportRule.ts';

/** `MAX_INLINE_RESPONSE_BYTES`, default 5 MiB (below Lambda's 6 MB response limit). */
export function maxInlineResponseBytes(): number {
  return setting('MAX_INLINE_RESPONSE_BYTES');
}

/**
 * Seconds the presigned GET of an oversized answer stays valid (`RESPONSE_URL_SECONDS`, default 300), and
 * at least the gateway cache TTL plus a minute (`TILE_MAX_AGE`, set by the gateway-cache plugin): a 303
 * the stage cache keeps must not outlive its URL.
 */
export function responseUrlSeconds(): number {
  const ttl = settingIfSet('TILE_MAX_AGE') ?? 0;
  return Math.max(setting('RESPONSE_URL_SECONDS'), ttl > 0 ? ttl + 60 : 0);
}

/**
 * A JSON answer produced in pieces (featuresText.ts), answered inline when it is at most
 * `maxInlineResponseBytes()`, byte for byte as the pieces give it. A larger one is streamed into the
 * upload bucket (`responses/<uuid>.json`) as the pieces arrive (`uploadStream`: a multipart upload), and
 * answered 303 with a short-lived presigned GET in `Location` and a small JSON body saying so; the upload
 * is aborted if the answer fails half-way. The function holds at most the inline limit plus about two
 * parts of 5 MiB (one in flight, one being gathered) and one batch of features, whatever the answer's
 * size. Without a bucket (in-process benches) the whole answer is returned inline.
 * `hint` ends the 303's message (how to get the answer in pages, when the endpoint can).
 *
 * @example return streamedJson(streamFeatureCollection(db.sql, ds, filters, options), 'read it in pages with limit and offset')
 */
export async function streamedJson(pieces: AsyncIterable<string>, hint?: string): Promise<HttpResponse> {
  const limit = maxInlineResponseBytes();
  const bucket = uploadBucket();
  const source = pieces[Symbol.asyncIterator]();
  const held: string[] = [];
  // UTF-8 bytes of held[0..counted), exact; `bound` adds 3 per UTF-16 unit of the pieces after them (a
  // unit never takes more than 3 bytes), so the exact count, a scan of every character, is made only
  // once the answer may be over the limit: a page far below it is never scanned here.
  let bytes = 0;
  let counted = 0;
  let bound = 0;
  for (;;) {
    const next = await source.next();
    if (next.done) return rawJson(200, held.join(''));
    held.push(next.value);
    if (!bucket) continue;
    bound += 3 * next.value.length;
    if (bound <= limit) continue;
    for (; counted < held.length; counted++) bytes += Buffer.byteLength(held[counted]);
    bound = bytes;
    if (bytes > limit) break;
  }
  // Over the limit: what is held, then the rest as it comes, into S3.
  async function* all(): AsyncGenerator<string> {
    yield* held.splice(0);
    for (;;) {
      const next = await source.next();
      if (next.done) return;
      bytes += Buffer.byteLength(next.value);
      yield next.value;
    }
  }
  // The S3 SDK (about 1 MB of bundle) loads only here: every worker of the read functions would otherwise
  // initialise it at start, which under a burst (a worker per request) delays every answer.
  const { uploadStream } = await import('#lib/uploads/streamUpload.ts');
  const { RESPONSES_PREFIX } = await import('#lib/uploads/s3.ts');
  const key = `${RESPONSES_PREFIX}${randomUUID()}.json`;
  try {
    await uploadStream(key, 'application/json; charset=utf-8', all());
  } finally {
    // Closes the producer (its database cursor) when the upload stopped early.
    await source.return?.();
  }
  return seeOther(key, bytes, limit, hint);
}

/** The 303 to the presigned GET of `key`. */
async function seeOther(key: string, bytes: number, limit: number, hint?: string): Promise<HttpResponse> {
  const { presignGet } = await import('#lib/uploads/s3.ts');
  const seconds = responseUrlSeconds();
  const url = await presignGet(key, seconds);
  const expiresAt = new Date(Date.now() + seconds * 1000).toISOString();
  return respond(
    303,
    {
      status: 'success',
      message:
        `The answer is ${bytes} bytes, more than the ${limit} bytes returned inline: GET it from the URL ` +
        `in Location (valid until ${expiresAt})${hint ? `, or ${hint}` : ''}.`,
      url,
      bytes,
      expiresAt,
    },
    { headers: { Location: url, 'Cache-Control': 'no-store' } },
  );
}

/**
 * The refusal of a read that would start one export more than the caps allow (lib/uploads/exportCaps.ts):
 * 429 or 503 in the failure shape, with `Retry-After`; nothing was started.
 */
export function exportRefusedAnswer(refused: {
  status: number;
  message: string;
  retryAfter: number;
}): HttpResponse {
  return respond(
    refused.status,
    { status: 'failure', message: refused.message },
    { headers: { 'Retry-After': String(refused.retryAfter), 'Cache-Control': 'no-store' } },
  );
}

/** Seconds a caller is told to wait before it looks at a running export job again (`Retry-After`). */
const EXPORT_RETRY_AFTER_S = 5;

/**
 * The answer of a whole-layer read handed to an export job (docs/geodatasets-read.md, "Export jobs"):
 * a finished export, 303 to a fresh presigned GET of its object (as an oversized answer's 303); a queued
 * or running one, 202 with the job's URL in `Location` (`GET /api/geodatasets/jobs/:id`, whose result
 * links the object once done); a failed one, 503 with its message.
 */
export async function exportAnswer(
  job: JobView,
  jobUrl: string,
  features: number,
  above: number,
): Promise<HttpResponse> {
  if (job.state === 'failed') {
    // The failure answers the same read until EXPORT_RETRY_SECONDS after it (lib/uploads/export.ts).
    const ended = job.finishedAt ? Date.parse(job.finishedAt) : Date.now();
    const wait = Math.max(1, Math.ceil((ended + exportRetrySeconds() * 1000 - Date.now()) / 1000));
    return respond(
      503,
      {
        status: 'failure',
        message: `The export of this layer failed (${job.error ?? 'no reason given'}); try again in ${wait} s.`,
      },
      { headers: { 'Retry-After': String(wait), 'Cache-Control': 'no-store' } },
    );
  }
  const done = exportResultOf(job);
  if (done) {
    const { presignGet } = await import('#lib/uploads/s3.ts');
    const seconds = responseUrlSeconds();
    const url = await presignGet(done.key, seconds);
    const expiresAt = new Date(Date.now() + seconds * 1000).toISOString();
    return respond(
      303,
      {
        status: 'success',
        message:
          `The layer's ${done.features} features (${done.bytes} bytes) were exported by job ${job.id}: GET them ` +
          `from the URL in Location (valid until ${expiresAt}).`,
        url,
        bytes: done.bytes,
        expiresAt,
      },
      { headers: { Location: url, 'Cache-Control': 'no-store' } },
    );
  }
  return respond(
    202,
    {
      status: 'success',
      message:
        `The layer has ${features} features, more than the ${above} read within one request: job ${job.id} ` +
        `exports it. Follow the URL in Location (GET /api/geodatasets/jobs/:id) until its state is ` +
        `'succeeded'; its result's url is the GeoJSON. The same request meanwhile answers this job again.`,
      url: jobUrl,
      body: { job: { id: job.id, state: job.state } },
    },
    {
      headers: {
        Location: jobUrl,
        'Retry-After': String(EXPORT_RETRY_AFTER_S),
        'Cache-Control': 'no-store',
      },
    },
  );
}
