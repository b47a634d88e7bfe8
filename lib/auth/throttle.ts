import type { Queryable } from '#lib/db/index.ts';

/**
 * Login throttling (docs/auth.md): after `MAX_FAILURES` failed logins for one username from one source
 * address within the window, further logins for that pair are refused (429 with `Retry-After`) until the
 * oldest of those failures leaves the window, even with the right password. Other addresses are not
 * affected. A successful login clears the pair's failures.
 */
export const MAX_FAILURES = 10;
export const WINDOW_MINUTES = 15;

/** Seconds until the pair may try again; 0 when it may try now. */
export async function loginRetryAfter(sql: Queryable, username: string, source: string): Promise<number> {
  const [row] = await sql`
    select count(*)::int as n,
      ceil(extract(epoch from (min(at) + make_interval(mins => ${WINDOW_MINUTES}::int) - now())))::int as retry
    from (
      select at from login_failures
      where username = ${username} and source = ${source}
        and at > now() - make_interval(mins => ${WINDOW_MINUTES}::int)
      order by at desc
      limit ${MAX_FAILURES}
    ) recent`;
  return row.n >= MAX_FAILURES ? Math.max(1, Number(row.retry)) : 0;
}

export async function recordLoginFailure(sql: Queryable, username: string, source: string): Promise<void> {
  await sql`insert into login_failures (username, source) values (${username}, ${source})`;
  await sql`delete from login_failures where at < now() - make_interval(mins => ${WINDOW_MINUTES}::int)`;
}

export async function clearLoginFailures(sql: Queryable, username: string, source: string): Promise<void> {
  await sql`delete from login_failures where username = ${username} and source = ${source}`;
}
