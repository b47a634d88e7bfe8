import type { Db, Queryable } from '#lib/db/index.ts';

/**
 * Login throttling (docs/auth.md). An attempt is **reserved before the password is checked**: under a
 * transaction-scoped advisory lock on the username, the attempts in the window are counted and, when both
 * limits leave room, this attempt is recorded in the same transaction. So a burst of concurrent guesses
 * checks at most the limit, however many arrive at once. The limits:
 * - `MAX_FAILURES` per (username, source address): that pair is refused (429 with `Retry-After`) until the
 *   oldest of its recent attempts leaves the window, even with the right password;
 * - `MAX_FAILURES_PER_USERNAME` per username across all sources, so many addresses cannot multiply the
 *   guesses (the price: that many failures lock the account's password logins for the window).
 * A reserved attempt stays counted when the password is wrong; a successful login clears the pair's.
 */
export const MAX_FAILURES = 10;
export const MAX_FAILURES_PER_USERNAME = 50;
export const WINDOW_MINUTES = 15;

/** Advisory lock class of login reservations (the second key is the username's hash). */
const LOGIN_LOCK = 727276;

export type Reservation = { ok: true } | { ok: false; retryAfter: number; scope: 'source' | 'username' };

export async function reserveLoginAttempt(db: Db, username: string, source: string): Promise<Reservation> {
  return db.transaction(async (tx) => {
    await tx`select pg_advisory_xact_lock(${LOGIN_LOCK}::int, hashtext(${username}))`;
    const [row] = await tx`
      with recent as (
        select source, at,
          row_number() over (order by at desc) as nth,
          row_number() over (partition by source order by at desc) as nth_of_source
        from login_failures
        where username = ${username} and at > now() - make_interval(mins => ${WINDOW_MINUTES}::int)
      )
      select
        count(*) filter (where source = ${source})::int as of_source,
        count(*)::int as of_username,
        ceil(extract(epoch from (
          max(at) filter (where source = ${source} and nth_of_source = ${MAX_FAILURES}::int)
          + make_interval(mins => ${WINDOW_MINUTES}::int) - now())))::int as source_retry,
        ceil(extract(epoch from (
          max(at) filter (where nth = ${MAX_FAILURES_PER_USERNAME}::int)
          + make_interval(mins => ${WINDOW_MINUTES}::int) - now())))::int as username_retry
      from recent`;
    if (row.of_source >= MAX_FAILURES) {
      return { ok: false, retryAfter: Math.max(1, Number(row.source_retry)), scope: 'source' } as const;
    }
    if (row.of_username >= MAX_FAILURES_PER_USERNAME) {
      return { ok: false, retryAfter: Math.max(1, Number(row.username_retry)), scope: 'username' } as const;
    }
    await tx`insert into login_failures (username, source) values (${username}, ${source})`;
    return { ok: true } as const;
  });
}

/** Deletes attempts older than the window (in passing, after a failed login). */
export async function forgetOldLoginFailures(sql: Queryable): Promise<void> {
  await sql`delete from login_failures where at < now() - make_interval(mins => ${WINDOW_MINUTES}::int)`;
}

export async function clearLoginFailures(sql: Queryable, username: string, source: string): Promise<void> {
  await sql`delete from login_failures where username = ${username} and source = ${source}`;
}
