import { notFound } from '#lib/errors.ts';
import { missionKey } from '#lib/storage/paths.ts';

/** A file of `/Missions/<mission>/<path>`: its mission (the first folder) and its key below the data root. */
export interface MissionFilePath {
  mission: string;
  key: string;
}

/**
 * The path after `/Missions/` as a key below the mission data root, with the root's rules
 * (`missionKey`: no `..`, not absolute, no backslash, no control character, no URL; a 400 naming `path`)
 * and MMGIS's: a file inside a mission's folder, never the folder itself (no listings), and no dotfile
 * or dot-folder (its static server answers them 404). docs/mission-site.md, "Paths".
 *
 * @example missionFilePath('MSL/Layers/basemap/3/4/2.png') // → { mission: 'MSL', key: 'MSL/Layers/basemap/3/4/2.png' }
 */
export function missionFilePath(proxy: string): MissionFilePath {
  const key = missionKey(proxy, 'path');
  const parts = key.split('/');
  if (parts.length < 2) throw notFound(`'${key}' is a mission folder, not a file.`);
  if (parts.some((p) => p.startsWith('.'))) throw notFound(`'${key}' was not found in the mission data.`);
  return { mission: parts[0], key };
}
