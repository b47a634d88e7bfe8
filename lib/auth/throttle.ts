import type { Db, Queryable } from '#lib/db/index.ts';
import { sha256 } from './secrets.ts';

/**
 * Login throttling (docs/auth.md, "Login throttling"), after OWASP's "device cookies": guessing is
 * bounded, and an attacker's guesses cannot lock the owner out of a device or address that has logged
 * the user in before. An attempt is **reserved before the password is checked**: under a
 * transaction-scoped advisory lock on the username, the attempts in the window are counted and, when the
 * limits of the client's kind leave room, this attempt is recorded in the same transaction. So a burst of
 * concurrent guesses checks at most the limit, however many arrive at once. The kinds of client:
 * - a **trusted device**: it sends a device cookie issued to this username by an earlier successful login
 *   (`login_devices`). Only its own limit applies, `MAX_FAILURES` per device: nothing an attacker does
 *   from elsewhere refuses it.
 * - a **known address**: an address that logged this username in within `KNOWN_SOURCE_DAYS`. Its own limit
 *   applies, `MAX_FAILURES` per (username, address), not the per-username one.
 * - any **other client**: `MAX_FAILURES` per (username, address), and `MAX_FAILURES_PER_USERNAME` across
 *   all the untrusted attempts for the username, so many addresses cannot multiply the guesses. Past it,
 *   new clients are refused for the window, trusted devices and known addresses are not.
 * A reserved attempt stays counted when the password is wrong; a successful login clears the client's.
 */
export const MAX_FAILURES = 10;
export const MAX_FAILURES_PER_USERNAME = 50;
export const WINDOW_MINUTES = 15;
/** How long an address that logged a user in stays known to that user. */
export const KNOWN_SOURCE_DAYS = 30;
/** How long an unused device cookie stays valid (each successful login from it renews it). */
export const DEVICE_DAYS = 365;

/** Advisory lock class of login reservations (the second key is the username's hash). */
const LOGIN_LOCK = 727276;

/** Attempts from a trusted device are recorded under this prefix and its cookie's hash, not the address. */
const DEVICE_PREFIX = 'device:';

export type ClientKind = 'device' | 'known' | 'untrusted';

/** Who is attempting: the limits' key (`source` for `login_failures`) and kind. */
export interface LoginClient {
  kind: ClientKind;
  key: string;
}

export type Reservation =
  | { ok: true }
  | { ok: false; retryAfter: number; scope: 'source' | 'device' | 'username' };

/**
 * The client of a login for `username`: a trusted device when `deviceCookie` was issued to this username
 * (and used within DEVICE_DAYS), else a known address when `source` logged it in within KNOWN_SOURCE_DAYS,
 * else untrusted.
 */
export async function loginClient(
  sql: Queryable,
  username: string,
  source: string,
  deviceCookie: string | undefined,
): Promise<LoginClient> {
  if (deviceCookie) {
    const hash = sha256(deviceCookie);
    const [device] = await sql`
      select 1 from login_devices
      where id_hash = ${hash} and username = ${username}
        and last_used_at > now() - make_interval(days => ${DEVICE_DAYS}::int)`;
    if (device) return { kind: 'device', key: `${DEVICE_PREFIX}${hash}` };
  }
  const [known] = await sql`
    select 1 from login_known_sources
    where username = ${username} and source = ${source}
      and last_success_at > now() - make_interval(days => ${KNOWN_SOURCE_DAYS}::int)`;
  return { kind: known ? 'known' : 'untrusted', key: source };
}

export async function reserveLoginAttempt(
  db: Db,
  username: string,
  client: LoginClient,
): Promise<Reservation> {
  return db.transaction(async (tx) => {
    await tx`select pg_advisory_xact_lock(${LOGIN_LOCK}::int, hashtext(${username}))`;
    const [row] = await tx`
      with recent as (
        select source, at,
          row_number() over (partition by source like ${`${DEVICE_PREFIX}%`} order by at desc) as nth_of_kind,
          row_number() over (partition by source order by at desc) as nth_of_source
        from login_failures
        where username = ${username} and at > now() - make_interval(mins => ${WINDOW_MINUTES}::int)
      )
      select
        count(*) filter (where source = ${client.key})::int as of_source,
        count(*) filter (where source not like ${`${DEVICE_PREFIX}%`})::int as of_username,
        ceil(extract(epoch from (
          max(at) filter (where source = ${client.key} and nth_of_source = ${MAX_FAILURES}::int)
          + make_interval(mins => ${WINDOW_MINUTES}::int) - now())))::int as source_retry,
        ceil(extract(epoch from (
          max(at) filter (where source not like ${`${DEVICE_PREFIX}%`} and nth_of_kind = ${MAX_FAILURES_PER_USERNAME}::int)
          + make_interval(mins => ${WINDOW_MINUTES}::int) - now())))::int as username_retry
      from recent`;
    if (row.of_source >= MAX_FAILURES) {
      const scope = client.kind === 'device' ? 'device' : 'source';
      return { ok: false, retryAfter: Math.max(1, Number(row.source_retry)), scope } as const;
    }
    if (client.kind === 'untrusted' && row.of_username >= MAX_FAILURES_PER_USERNAME) {
      return { ok: false, retryAfter: Math.max(1, Number(row.username_retry)), scope: 'username' } as const;
    }
    await tx`insert into login_failures (username, source) values (${username}, ${client.key})`;
    return { ok: true } as const;
  });
}

/** Deletes attempts older than the window (in passing, after a failed login). */
export async function forgetOldLoginFailures(sql: Queryable): Promise<void> {
  await sql`delete from login_failures where at < now() - make_interval(mins => ${WINDOW_MINUTES}::int)`;
}

/**
 * After a successful login: clears the client's attempts, remembers the address as known to the user, and
 * renews the device cookie it sent (when trusted) or records the new one (`newDevice`, issued by the caller).
 */
export async function recordLoginSuccess(
  sql: Queryable,
  username: string,
  source: string,
  client: LoginClient,
  newDevice: string | undefined,
): Promise<void> {
  await sql`delete from login_failures where username = ${username} and source = ${client.key}`;
  await sql`
    insert into login_known_sources (username, source) values (${username}, ${source})
    on conflict (username, source) do update set last_success_at = now()`;
  if (client.kind === 'device')
    await sql`update login_devices set last_used_at = now() where id_hash = ${client.key.slice(DEVICE_PREFIX.length)}`;
  if (newDevice)
    await sql`insert into login_devices (id_hash, username) values (${sha256(newDevice)}, ${username})`;
  // Housekeeping in passing: devices and addresses past their time are useless.
  await sql`delete from login_devices where last_used_at < now() - make_interval(days => ${DEVICE_DAYS}::int)`;
  await sql`
    delete from login_known_sources
    where last_success_at < now() - make_interval(days => ${KNOWN_SOURCE_DAYS}::int)`;
}
