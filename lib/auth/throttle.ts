import type { Db, Queryable } from '#lib/db/index.ts';
import { sha256 } from './secrets.ts';

/**
 * Login throttling (docs/auth.md, "Login throttling"), after OWASP's "device cookies": guessing is
 * bounded, and an attacker's guesses cannot lock the owner out of a device or address that has logged
 * the user in before. An attempt is **reserved before the password is checked**: under a
 * transaction-scoped advisory lock on the username, the attempts in the window are counted and, when the
 * limits of the client's kind leave room, this attempt is recorded in the same transaction. So a burst of
 * concurrent guesses checks at most the limit, however many arrive at once.
 *
 * Every attempt counts toward the account's `MAX_FAILURES_PER_USERNAME` (50 per window), whoever sends it:
 * no number of device cookies or addresses adds guesses. Each kind of client may fill it only up to its
 * `ACCOUNT_ROOM`, so the last places are kept for the clients that logged the user in before:
 * - a **trusted device**: it sends a device cookie issued to this user under its current password
 *   (`login_devices`). `MAX_FAILURES` per device, and the account's attempts up to 50.
 * - a **known address**: an address that logged this username in within `KNOWN_SOURCE_DAYS`.
 *   `MAX_FAILURES` per (username, address), and the account's attempts up to 40.
 * - any **other client**: `MAX_FAILURES` per (username, address), and the account's attempts up to 30.
 *   So new clients' guesses never take the places of the owner's addresses and devices, and those of a
 *   known address (a NAT the owner shares) never the devices'.
 * A reserved attempt stays counted when the password is wrong; a successful login clears the client's.
 */
export const MAX_FAILURES = 10;
export const MAX_FAILURES_PER_USERNAME = 50;
export const WINDOW_MINUTES = 15;
/** How many of the account's attempts in the window each kind of client may have made before its own. */
export const ACCOUNT_ROOM: Record<ClientKind, number> = {
  untrusted: 30,
  known: 40,
  device: MAX_FAILURES_PER_USERNAME,
};
/** How long an address that logged a user in stays known to that user. */
export const KNOWN_SOURCE_DAYS = 30;
/** How long an unused device cookie stays valid (each successful login from it renews it). */
export const DEVICE_DAYS = 365;
/** Devices one user keeps; a login from another device evicts the least recently used one. */
export const MAX_DEVICES_PER_USER = 10;

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
 * The client of a login for `username`: a trusted device when `deviceCookie` was issued to this user under
 * its current password (and used within DEVICE_DAYS), else a known address when `source` logged it in
 * within KNOWN_SOURCE_DAYS, else untrusted.
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
      select 1 from login_devices d join users u on u.id = d.user_id
      where d.id_hash = ${hash} and u.username = ${username}
        and d.password_stamp = ${sqlPasswordStamp(sql)}
        and d.last_used_at > now() - make_interval(days => ${DEVICE_DAYS}::int)`;
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
  const room = ACCOUNT_ROOM[client.kind];
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
        count(*) filter (where source = ${client.key})::int as of_source,
        count(*)::int as of_account,
        ceil(extract(epoch from (
          max(at) filter (where source = ${client.key} and nth_of_source = ${MAX_FAILURES}::int)
          + make_interval(mins => ${WINDOW_MINUTES}::int) - now())))::int as source_retry,
        ceil(extract(epoch from (
          max(at) filter (where nth = ${room}::int)
          + make_interval(mins => ${WINDOW_MINUTES}::int) - now())))::int as account_retry
      from recent`;
    if (row.of_source >= MAX_FAILURES) {
      const scope = client.kind === 'device' ? 'device' : 'source';
      return { ok: false, retryAfter: Math.max(1, Number(row.source_retry)), scope } as const;
    }
    if (row.of_account >= room) {
      return { ok: false, retryAfter: Math.max(1, Number(row.account_retry)), scope: 'username' } as const;
    }
    await tx`insert into login_failures (username, source) values (${username}, ${client.key})`;
    return { ok: true } as const;
  });
}

/** Deletes attempts older than the window (in passing, after a failed login). */
export async function forgetOldLoginFailures(sql: Queryable): Promise<void> {
  await sql`delete from login_failures where at < now() - make_interval(mins => ${WINDOW_MINUTES}::int)`;
}

/** A stamp of the user's password hash (`u.password_hash`): it changes with every new password (a new salt). */
function sqlPasswordStamp(sql: Queryable) {
  return sql`encode(sha256(convert_to(u.password_hash, 'UTF8')), 'hex')`;
}

/** The user a successful login verified: its id and the password hash the password was checked against. */
export interface VerifiedUser {
  id: number;
  passwordHash: string;
}

/**
 * After a successful login: clears the client's attempts, remembers the address as known to the user, and
 * renews the device cookie it sent (when trusted) or records the new one (`newDevice`, issued by the caller)
 * for this user under the password just verified, evicting its least recently used devices past
 * `MAX_DEVICES_PER_USER`. The address and the device are recorded only while the user still has the
 * password verified: a password change or a removal meanwhile leaves nothing behind.
 */
export async function recordLoginSuccess(
  sql: Queryable,
  username: string,
  source: string,
  client: LoginClient,
  newDevice: string | undefined,
  user: VerifiedUser,
): Promise<void> {
  await sql`delete from login_failures where username = ${username} and source = ${client.key}`;
  await sql`
    insert into login_known_sources (username, source)
    select ${username}, ${source} from users u
    where u.id = ${user.id} and u.password_hash = ${user.passwordHash}
    on conflict (username, source) do update set last_success_at = now()`;
  if (client.kind === 'device')
    await sql`update login_devices set last_used_at = now() where id_hash = ${client.key.slice(DEVICE_PREFIX.length)}`;
  if (newDevice) {
    await sql`
      insert into login_devices (id_hash, username, user_id, password_stamp)
      select ${sha256(newDevice)}, u.username, u.id, ${sqlPasswordStamp(sql)} from users u
      where u.id = ${user.id} and u.password_hash = ${user.passwordHash}`;
    await sql`
      delete from login_devices where user_id = ${user.id} and id_hash in (
        select id_hash from login_devices where user_id = ${user.id}
        order by last_used_at desc, created_at desc offset ${MAX_DEVICES_PER_USER}::int)`;
  }
  // Housekeeping in passing: devices and addresses past their time are useless.
  await sql`delete from login_devices where last_used_at < now() - make_interval(days => ${DEVICE_DAYS}::int)`;
  await sql`
    delete from login_known_sources
    where last_success_at < now() - make_interval(days => ${KNOWN_SOURCE_DAYS}::int)`;
}

/**
 * Revokes what logins of `username` earned (docs/auth.md, "Login throttling"): its devices and known
 * addresses. On a password change (they were earned with the old password) and a removal (a later account
 * of the same name starts with none).
 */
export async function revokeLoginTrust(sql: Queryable, username: string): Promise<void> {
  await sql`delete from login_devices where username = ${username}`;
  await sql`delete from login_known_sources where username = ${username}`;
}
