import type { FileStat } from '#lib/storage/storage.ts';

/**
 * Whether the browser's copy is still current (RFC 9110, 13.1): `If-None-Match` (weak comparison, `*`)
 * decides when sent; otherwise `If-Modified-Since` against the file's modification time (whole seconds).
 */
export function notModified(
  file: FileStat,
  ifNoneMatch: string | undefined,
  ifModifiedSince: string | undefined,
): boolean {
  if (ifNoneMatch) {
    const want = file.etag.replace(/^W\//, '');
    return ifNoneMatch.split(',').some((t) => {
      const tag = t.trim().replace(/^W\//, '');
      return tag === '*' || tag === want;
    });
  }
  if (!ifModifiedSince) return false;
  const since = Date.parse(ifModifiedSince);
  return Number.isFinite(since) && Math.floor(file.modified.getTime() / 1000) * 1000 <= since;
}

/** The one byte range a request asks for: `[start, end]` inclusive, `'unsatisfiable'`, or null (whole file). */
export type ByteRange = { start: number; end: number } | 'unsatisfiable' | null;

/**
 * `Range: bytes=…` of one range (`a-b`, `a-`, `-n`) against a file of `size` bytes. Several ranges, other
 * units or a malformed header are ignored (the whole file is sent, as RFC 9110 allows); a range past the
 * end is unsatisfiable (416). `If-Range` that does not match the entity tag or date also sends the whole.
 */
export function byteRange(file: FileStat, range: string | undefined, ifRange: string | undefined): ByteRange {
  if (!range) return null;
  if (
    ifRange &&
    ifRange !== file.etag &&
    Date.parse(ifRange) !== Math.floor(file.modified.getTime() / 1000) * 1000
  ) {
    return null;
  }
  const m = /^bytes=(\d*)-(\d*)$/.exec(range.trim());
  if (!m || (m[1] === '' && m[2] === '')) return null;
  const size = file.size;
  if (m[1] === '') {
    const n = Number(m[2]);
    if (n === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (m[2] !== '' && Number(m[2]) < start) return null;
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}
