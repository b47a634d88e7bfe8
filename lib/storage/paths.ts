import { badRequest } from '#lib/errors.ts';
import { hasControl } from './text.ts';

/**
 * Turns a client's `path` into a key below the mission data root. MMGIS's `Missions/...` form is
 * accepted (a leading `/Missions/` or `Missions/` is dropped); `.` and empty segments are dropped.
 * Refused with 400: `..` segments, absolute paths, URL schemes (`http:`, `/vsicurl/` is absolute),
 * backslashes, NUL and other control characters.
 *
 * @example missionKey('/Missions/MSL/Data/dem.tif') // → 'MSL/Data/dem.tif'
 */
export function missionKey(path: unknown, field = 'path', allowEmpty = false): string {
  if (typeof path !== 'string' || path === '') throw badRequest(`Missing required field '${field}'.`);
  if (path.length > 1024) throw badRequest(`'${field}' is longer than 1024 characters.`);
  if (hasControl(path)) throw badRequest(`'${field}' contains control characters.`);
  if (path.includes('\\')) throw badRequest(`'${field}' must not contain backslashes.`);
  let p = path;
  if (p.startsWith('/Missions/')) p = p.slice('/Missions/'.length);
  else if (p.startsWith('Missions/')) p = p.slice('Missions/'.length);
  else if (p === '/Missions' || p === 'Missions') p = '';
  if (p.startsWith('/')) throw badRequest(`'${field}' must be relative to the mission data root.`);
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(p)) throw badRequest(`'${field}' must be a path, not a URL.`);
  const parts = p.split('/').filter((s) => s !== '' && s !== '.');
  if (parts.includes('..')) throw badRequest(`'${field}' must not contain '..'.`);
  if (parts.length === 0 && !allowEmpty) throw badRequest(`'${field}' names no file.`);
  return parts.join('/');
}
