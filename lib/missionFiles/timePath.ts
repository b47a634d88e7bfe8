import type { MissionStorage } from '#lib/storage/storage.ts';

const folderLists = new Map<string, { at: number; dirs: string[] }>();
/** How long a folder's list of time folders is kept per instance (MMGIS keeps it 30 minutes). */
const LIST_TTL_MS = 60_000;

/**
 * MMGIS's time-enabled tile paths (its `missions` middleware): a key with `_time_` and a `time` query names
 * the latest folder at `_time_`'s place whose time is not after `time` (with `starttime`, the latest in
 * `[starttime, time]`); folder names are ISO times with `_` for `:` (`2022-08-09T17_26_52Z`), or
 * `<from>-to-<to>` spans, compared as MMGIS compares them (as text, `Z` dropped). Returns the key to read,
 * or null when no folder fits. A key without `_time_` or a request without `time` is read as it is.
 *
 * @example await timedKey(s, 'MSL/Layers/Hazard/_time_/3/4/2.png', '2022-08-10T00:00:00Z') // → 'MSL/Layers/Hazard/2022-08-09T17_26_52Z/3/4/2.png'
 */
export async function timedKey(
  storage: MissionStorage,
  key: string,
  time: string | undefined,
  starttime: string | undefined,
): Promise<string | null> {
  const at = key.indexOf('_time_');
  if (time === undefined || at < 0) return key;
  const prefix = key.slice(0, at);
  const suffix = key.slice(at + '_time_'.length);
  const dirs = await timeFolders(storage, prefix.replace(/\/$/, ''));
  const t = time.replace(/:/g, '_').replace('Z', '');
  const s = starttime?.replace(/:/g, '_').replace('Z', '');
  const fits = dirs.filter((v) => {
    const name = v.split('--')[0].replace(/Z/g, '');
    if (name.includes('-to-')) {
      const [from, to] = name.split('-to-');
      return s !== undefined ? !(t < from || s > to) : to <= t;
    }
    return s !== undefined ? name >= s && name <= t : name <= t;
  });
  const chosen = fits[fits.length - 1];
  return chosen === undefined ? null : `${prefix}${chosen}${suffix}`;
}

async function timeFolders(storage: MissionStorage, prefix: string): Promise<string[]> {
  const cached = folderLists.get(prefix);
  if (cached && Date.now() - cached.at < LIST_TTL_MS) return cached.dirs;
  const dirs = (await storage.listFolders(prefix).catch(() => [] as string[])).sort();
  if (folderLists.size > 1000) folderLists.clear();
  folderLists.set(prefix, { at: Date.now(), dirs });
  return dirs;
}
