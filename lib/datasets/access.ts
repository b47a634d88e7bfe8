import { authMode, canViewMission } from '#lib/auth/permissions.ts';
import type { Principal } from '#lib/auth/principal.ts';
import type { Queryable } from '#lib/db/index.ts';
import { forbidden } from '#lib/errors.ts';
import { datasetOccurrences } from './entries.ts';
import type { DatasetQuery } from './query.ts';

/**
 * Under `AUTH=local` a dataset that missions link (`variables.datasetLinks` of a layer in a mission's
 * current configuration) is readable only by those who may view at least one of those missions
 * (docs/auth.md, "Mission data"). A dataset no mission links stays readable by any logged-in user.
 */
export async function assertMayReadDatasets(
  sql: Queryable,
  principal: Principal,
  queries: DatasetQuery[],
): Promise<void> {
  if (authMode() === 'none' || principal.user?.role === 'admin') return;
  const names = new Set(queries.map((q) => q.dataset).filter((d): d is string => typeof d === 'string'));
  if (names.size === 0) return;
  const occurrences = await datasetOccurrences(sql);
  for (const name of names) {
    const missions = Object.keys(occurrences.get(name) ?? {});
    if (missions.length > 0 && !missions.some((m) => canViewMission(principal, m)))
      throw forbidden(`You may not view a mission that links dataset '${name}'.`);
  }
}
