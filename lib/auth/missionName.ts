import { badRequest } from '#lib/errors.ts';
import { missionName } from './schemas.ts';

const MISSION = new RegExp(missionName.pattern);

/**
 * Checks a mission name (docs/configure.md: 1–64 characters of ASCII letters, digits, space, `_`, `-`)
 * and returns it; anything else is a 400 naming `field`. Names are never trimmed. It lives with auth
 * because permissions are per mission; configure and the WebSocket subscriptions both use it.
 */
export function assertMissionName(name: unknown, field = 'mission'): string {
  if (typeof name !== 'string' || name.length === 0) {
    throw badRequest(`'${field}' must be a non-empty mission name.`);
  }
  if (name.length > missionName.maxLength || !MISSION.test(name)) {
    throw badRequest(
      `'${field}' is not a valid mission name: use 1–64 characters of letters, digits, space, '_' and '-'.`,
    );
  }
  return name;
}
