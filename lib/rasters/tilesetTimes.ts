import { badRequest } from '#lib/errors.ts';
import { parseIsoInstant, parseIsoTimestamp } from '#lib/iso8601.ts';
import { missionKey } from '#lib/storage/paths.ts';
import type { MissionStorage } from '#lib/storage/storage.ts';

/** `<date>T<hh>_<mm>_<ss>[.fff](Z|±hh_mm)-<name>`: MMGIS's time folder, `_` standing for `:`. */
const FOLDER =
  /^(\d{4}-\d{2}-\d{2}(?:T\d{2}[_:]\d{2}(?:[_:]\d{2}(?:\.\d+)?)?)?)(Z|[+-]\d{2}(?:[_:]?\d{2})?)?(?:-(.*))?$/;

export interface TimeFolder {
  /** The folder's time as ISO 8601 text (MMGIS's form, e.g. `2022-08-09T17:26:52Z`). */
  t: string;
  /** The rest of the folder name after `<time>-`. */
  n: string;
}

/** A time folder's `{t, n}` and its instant, or null for folders that are not time folders. */
export function parseTimeFolder(name: string): (TimeFolder & { ms: number }) | null {
  const m = FOLDER.exec(name);
  if (!m) return null;
  const t = m[1].replace(/_/g, ':') + (m[2] ?? 'Z').replace(/_/g, ':');
  const iso = parseIsoTimestamp(t);
  if (!iso) return null;
  return { t, n: m[3] ?? '', ms: Date.parse(iso) };
}

function instant(v: unknown, field: string): number {
  if (typeof v !== 'string' || v === '') throw badRequest(`Missing required query parameter '${field}'.`);
  // A `+hh:mm` offset sent unencoded in a query string arrives as a space.
  const iso = parseIsoInstant(v.replace(/ (\d{2}(:?\d{2})?)$/, '+$1'));
  if (!iso) throw badRequest(`'${field}' must be an ISO 8601 time.`);
  return Date.parse(iso);
}

/**
 * queryTilesetTimes: the time folders directly below the part of `path` before `_time_`, with
 * `starttime ≤ t ≤ endtime` compared as instants, sorted by time.
 */
export async function queryTilesetTimes(
  storage: MissionStorage,
  q: { path?: unknown; starttime?: unknown; endtime?: unknown },
): Promise<TimeFolder[]> {
  if (typeof q.path !== 'string' || q.path === '')
    throw badRequest("Missing required query parameter 'path'.");
  const at = q.path.indexOf('_time_');
  if (at < 0) throw badRequest("'path' must contain '_time_' where the time folders are.");
  const start = instant(q.starttime, 'starttime');
  const end = instant(q.endtime, 'endtime');
  if (start > end) {
    const iso = (ms: number) => new Date(ms).toISOString();
    throw badRequest(`'starttime' (${iso(start)}) is after 'endtime' (${iso(end)}).`);
  }
  const prefix = missionKey(q.path.slice(0, at), 'path', true);
  const folders = await storage.listFolders(prefix);
  return folders
    .map(parseTimeFolder)
    .filter((f): f is TimeFolder & { ms: number } => f !== null && f.ms >= start && f.ms <= end)
    .sort((a, b) => a.ms - b.ms || (a.n < b.n ? -1 : a.n > b.n ? 1 : 0))
    .map(({ t, n }) => ({ t, n }));
}
