import type { Queryable } from '#lib/db/index.ts';

/** Whether any account exists (`POST /api/users/has`: the established login page offers first signup when none). */
export async function anyUser(sql: Queryable): Promise<boolean> {
  const [r] = await sql<{ has: boolean }[]>`select exists (select 1 from users) as has`;
  return r.has;
}
