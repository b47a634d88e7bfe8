import type { Queryable } from '#lib/db/index.ts';

/** Every mission that has a stored configuration, sorted by code point. */
export async function listMissions(sql: Queryable): Promise<string[]> {
  const rows = await sql`select mission from configs group by mission order by mission collate "C"`;
  return rows.map((r) => r.mission as string);
}
