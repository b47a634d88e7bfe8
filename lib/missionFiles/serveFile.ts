import { HttpError, notFound } from '#lib/errors.ts';
import type { MissionStorage } from '#lib/storage/storage.ts';
import { byteRange, notModified } from './conditional.ts';
import { contentTypeOf } from './contentType.ts';
import { MissCache } from './missCache.ts';
import { timedKey } from './timePath.ts';

/**
 * The largest body answered inline: its base64 (4/3 larger) stays under Lambda's 6 MB response limit.
 * A longer whole file is a 303 to a short-lived S3 URL (on a folder, locally, it is sent); a longer range is
 * shortened to it (a 206 names the bytes it holds).
 */
export const INLINE_MAX_BYTES = 4 * 1024 * 1024;
const SIGNED_URL_SECONDS = 300;

export interface MissionFileRequest {
  /** The key below the data root (`missionFilePath`). */
  key: string;
  time?: string;
  starttime?: string;
  headers: {
    ifNoneMatch?: string;
    ifModifiedSince?: string;
    range?: string;
    ifRange?: string;
  };
  /** `Cache-Control` of every answer (docs/mission-site.md, "Caching"). */
  cacheControl: string;
}

export interface MissionFileAnswer {
  statusCode: 200 | 206 | 303 | 304 | 416;
  headers: Record<string, string>;
  body?: Uint8Array;
  /** A 416's message (answered as the failure shape). */
  failure?: string;
}

const misses = new MissCache();

/**
 * One file of the mission data root as a browser expects it: Content-Type by extension, a strong ETag
 * and Last-Modified, 304 on a current `If-None-Match`/`If-Modified-Since`, 206 for one byte range (416 past
 * the end), `Accept-Ranges: bytes`. A missing file is a 404; repeats of it within seconds are answered from
 * this instance's memory without asking the storage.
 */
export async function serveMissionFile(
  storage: MissionStorage,
  req: MissionFileRequest,
): Promise<MissionFileAnswer> {
  const key = await timedKey(storage, req.key, req.time, req.starttime);
  if (key === null) throw notFound(`No time folder of '${req.key}' fits the time asked for.`);
  if (misses.has(key)) throw notFound(`'${key}' was not found in the mission data.`);
  const file = await storage.stat(key).catch((e: unknown) => {
    if (e instanceof HttpError && e.statusCode === 404) misses.add(key);
    throw e;
  });
  const headers: Record<string, string> = {
    'Content-Type': contentTypeOf(key),
    ETag: file.etag,
    'Last-Modified': file.modified.toUTCString(),
    'Cache-Control': req.cacheControl,
    'Accept-Ranges': 'bytes',
    'X-Content-Type-Options': 'nosniff',
    // A private answer belongs to the session that asked: a browser shared by two users must not reuse
    // one user's copy for the other.
    ...(req.cacheControl.startsWith('private') ? { Vary: 'Cookie, Authorization' } : {}),
  };
  if (notModified(file, req.headers.ifNoneMatch, req.headers.ifModifiedSince)) {
    const { 'Content-Type': _type, ...kept } = headers;
    return { statusCode: 304, headers: kept };
  }
  const range = byteRange(file, req.headers.range, req.headers.ifRange);
  if (range === 'unsatisfiable') {
    return {
      statusCode: 416,
      headers: { 'Content-Range': `bytes */${file.size}`, 'Cache-Control': 'no-store' },
      failure: `'Range' lies past the end of '${key}' (${file.size} bytes).`,
    };
  }
  if (range) {
    const end = Math.min(range.end, range.start + INLINE_MAX_BYTES - 1);
    const body = await storage.readRange(key, range.start, end - range.start + 1);
    headers['Content-Range'] = `bytes ${range.start}-${range.start + body.length - 1}/${file.size}`;
    return { statusCode: 206, headers, body };
  }
  if (file.size > INLINE_MAX_BYTES && storage.signedUrl) {
    const location = await storage.signedUrl(key, SIGNED_URL_SECONDS);
    return { statusCode: 303, headers: { Location: location, 'Cache-Control': 'no-store' } };
  }
  const body = file.size === 0 ? new Uint8Array(0) : await storage.readRange(key, 0, file.size);
  return { statusCode: 200, headers, body };
}
