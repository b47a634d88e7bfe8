import type { Queryable } from '#lib/db/index.ts';
import { dbDriverName } from '#lib/db/index.ts';

/** A trivial query within `timeoutMs`: whether the database answers, and through which driver. */
export async function checkDatabase(sql: Queryable, timeoutMs = 5000) {
  let timer: NodeJS.Timeout | undefined;
  try {
    const ok = await Promise.race([
      sql`select 1 as one`.then((r) => r[0]?.one === 1),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), timeoutMs);
      }),
    ]);
    return { driver: dbDriverName(), ok };
  } catch {
    return { driver: dbDriverName(), ok: false };
  } finally {
    clearTimeout(timer);
  }
}
