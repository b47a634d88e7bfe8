import { authMode, canViewMission } from '#lib/auth/permissions.ts';
import type { Principal } from '#lib/auth/principal.ts';
import { forbidden } from '#lib/errors.ts';
import { missionKey } from '#lib/storage/paths.ts';

/**
 * Under `AUTH=local` a raster or tileset path is readable only by those who may view the mission it names
 * (docs/auth.md, "Mission data"): the first segment below the mission data root (`Missions/<mission>/…`
 * or `<mission>/…`). A path naming no mission folder is for administrators. A missing or malformed path
 * is left to the reader, which answers 400 naming the field.
 */
export function assertMayReadPath(principal: Principal, path: unknown): void {
  if (authMode() === 'none' || typeof path !== 'string' || path === '') return;
  const key = missionKey(path, 'path', true);
  const [mission, ...rest] = key.split('/');
  if (rest.length > 0 && canViewMission(principal, mission)) return;
  if (principal.user?.role === 'admin') return;
  throw forbidden(
    rest.length > 0 ? `You may not view mission '${mission}'.` : "'path' names no mission's data.",
  );
}
