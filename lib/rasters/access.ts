import { authMode, canViewMission } from '#lib/auth/permissions.ts';
import type { Principal } from '#lib/auth/principal.ts';
import { badRequest, forbidden, HttpError } from '#lib/errors.ts';
import { missionKey } from '#lib/storage/paths.ts';

/**
 * A raster or tileset `path` is a file path below the mission data root, never a dataset GDAL would build
 * from the text itself (docs/auth.md, "Mission data"): an inline VRT or other XML document (MMGIS's spec
 * maps `/etc/passwd` onto pixels that way) and a segment whose percent-decoding is `.` or `..` (`%2e%2e`)
 * are refused with 400 naming the field, under every `AUTH` mode, before anything is read.
 */
export function assertPlainPath(path: string, field = 'path'): void {
  if (/^\s*</.test(path) || /<\/?[A-Za-z!?]/.test(path))
    throw badRequest(`'${field}' must be a file path, not an inline dataset (VRT or other XML).`);
  for (const segment of path.split('/')) {
    if (!/%/.test(segment)) continue;
    let decoded = segment;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      // not percent-encoding: an ordinary file name
    }
    if (decoded === '.' || decoded === '..' || decoded.includes('/') || decoded.includes('\\'))
      throw badRequest(`'${field}' must not contain encoded dot segments or separators.`);
  }
}

/**
 * Under `AUTH=local` a raster or tileset path is readable only by those who may view the mission it names
 * (docs/auth.md, "Mission data"): the first segment below the mission data root (`Missions/<mission>/…`
 * or `<mission>/…`). A path naming no mission folder is for administrators. Under every mode the path must
 * be a plain file path (`assertPlainPath`). A missing or otherwise malformed path is left to the reader,
 * which answers 400 naming the field.
 */
export function assertMayReadPath(principal: Principal, path: unknown): void {
  if (typeof path !== 'string' || path === '') return;
  assertPlainPath(path);
  if (authMode() === 'none') return;
  const key = missionKey(path, 'path', true);
  const [mission, ...rest] = key.split('/');
  if (rest.length > 0 && canViewMission(principal, mission)) return;
  if (principal.user?.role === 'admin') return;
  throw forbidden(
    rest.length > 0 ? `You may not view mission '${mission}'.` : "'path' names no mission's data.",
  );
}

/**
 * Runs a raster route's work and answers its own failures in the established server's shape:
 * `{status:'failure', message, error: true}` (MMGIS's getbands, getprofile and getminmax answer
 * `{error: true, message}`; docs/utils.md). Failures the framework answers before the route runs (a body
 * the schema refuses, a missing login, a body too large) keep the plain shape.
 */
export async function withErrorFlag<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    if (e instanceof HttpError) throw new HttpError(e.statusCode, e.message, { ...e.extra, error: true });
    throw e;
  }
}
