import { authMode } from '#lib/auth/permissions.ts';
import { setting } from '#lib/settings.ts';

/**
 * `Cache-Control` of a mission file (docs/mission-site.md, "Caching"): kept by the browser for
 * `MISSION_FILES_MAX_AGE_S` (default 3600; 0: revalidate every time, with the ETag), then revalidated.
 * `public` under `AUTH=none`; `private` under `AUTH=local`, where every mission is for its viewers only, so
 * no shared cache (a CDN, a proxy) keeps a copy for the next person.
 */
export function missionFileCacheControl(): string {
  const maxAge = setting('MISSION_FILES_MAX_AGE_S');
  return `${authMode() === 'local' ? 'private' : 'public'}, max-age=${maxAge}`;
}
