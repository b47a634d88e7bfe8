import { canViewMission } from '#lib/auth/permissions.ts';
import type { Principal } from '#lib/auth/principal.ts';
import { forbidden } from '#lib/errors.ts';

/**
 * A mission's files are for those who may view the mission (docs/auth.md, "Mission data"): anyone under
 * `AUTH=none`; under `AUTH=local` administrators and the users whose missions list it (403 otherwise).
 */
export function assertMayViewMissionFiles(principal: Principal, mission: string): void {
  if (!canViewMission(principal, mission)) throw forbidden(`You may not view mission '${mission}'.`);
}
