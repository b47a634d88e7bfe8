import { assertMissionName } from '#lib/auth/missionName.ts';
import { canViewMission } from '#lib/auth/permissions.ts';
import type { Principal } from '#lib/auth/principal.ts';
import type { Queryable } from '#lib/db/index.ts';
import { notFound } from '#lib/errors.ts';
import { type ConfigRecord, readLatestOfEach } from './store.ts';

/** Splits a comma-separated `mission` filter; entries are trimmed, empty ones dropped, each name checked. */
export function parseMissionList(value: unknown): string[] | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const names = String(value)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (!names.length) return undefined;
  return [...new Set(names.map((n) => assertMissionName(n)))];
}

/**
 * The latest configuration of each mission the caller may view (`AUTH=local`: admins all, users those in
 * their `missions`), optionally only the `missions` named. A named mission that is unknown or not
 * viewable is a 404 naming it (the two are not told apart).
 */
export async function exportConfigs(
  sql: Queryable,
  principal: Principal,
  missions?: string[],
): Promise<ConfigRecord[]> {
  const records = (await readLatestOfEach(sql, missions)).filter((r) => canViewMission(principal, r.mission));
  if (missions) {
    const found = new Set(records.map((r) => r.mission));
    const missing = missions.filter((m) => !found.has(m));
    if (missing.length) throw notFound(`Unknown mission ${missing.map((m) => `'${m}'`).join(', ')}.`);
  }
  return records;
}

/**
 * The `layers` tree of the latest configuration of every mission (no permission filter): what other
 * domains read instead of the `configs` table, e.g. which layers use a geodataset.
 */
export async function readLatestLayers(sql: Queryable): Promise<{ mission: string; layers: unknown }[]> {
  const rows = await sql`
    select distinct on (mission) mission, config -> 'layers' as layers
    from configs order by mission, version desc`;
  return rows.map((r) => ({ mission: r.mission as string, layers: r.layers as unknown }));
}
