import type { Db, Queryable } from '#lib/db/index.ts';
import { conflict, forbidden, notFound } from '#lib/errors.ts';
import { hashPassword } from './passwords.ts';
import { sha256 } from './secrets.ts';
import { revokeLoginTrust } from './throttle.ts';

export type Role = 'admin' | 'user';

export interface User {
  id: number;
  username: string;
  email: string | null;
  role: Role;
  missions: string[];
  createdAt: string;
}

export function toUser(row: Record<string, any>): User {
  return {
    id: Number(row.id),
    username: row.username,
    email: row.email ?? null,
    role: row.role,
    missions: row.missions ?? [],
    createdAt: new Date(row.created_at).toISOString(),
  };
}

export async function createUser(
  sql: Queryable,
  input: { username: string; password: string; email?: string | null; role: Role; missions?: string[] },
): Promise<User> {
  const hash = await hashPassword(input.password);
  const rows = await sql`
    insert into users (username, email, password_hash, role, missions)
    values (${input.username}, ${input.email ?? null}, ${hash}, ${input.role}, ${input.missions ?? []}::text[])
    on conflict (username) do nothing
    returning *`;
  if (!rows.length) throw conflict(`username '${input.username}' is already taken.`);
  return toUser(rows[0]);
}

/**
 * Creates the first administrator; refused (403) once an administrator exists (docs/auth.md). Only an
 * administrator closes it: an account signed up earlier cannot pre-empt the deployment's owner. Racing
 * calls are serialized by a transaction-scoped advisory lock, so exactly one admin is created (a bare
 * `where not exists` is not enough under READ COMMITTED: every racer sees no admin). A taken username is 409.
 */
export async function firstSignup(db: Db, username: string, password: string): Promise<User> {
  const hash = await hashPassword(password);
  const rows = await db.transaction(async (tx) => {
    await tx`select pg_advisory_xact_lock(${ADMINS_LOCK})`;
    if (await adminExists(tx))
      throw forbidden('first_signup is only possible while no administrator exists.');
    return tx`
      insert into users (username, password_hash, role) values (${username}, ${hash}, 'admin')
      on conflict (username) do nothing
      returning *`;
  });
  if (!rows.length) throw conflict(`username '${username}' is already taken.`);
  return toUser(rows[0]);
}

/** Serializes the changes that decide whether an administrator exists (first_signup, demotion). */
const ADMINS_LOCK = 727275;

export async function adminExists(sql: Queryable): Promise<boolean> {
  const [row] = await sql`select exists (select 1 from users where role = 'admin') as yes`;
  return row.yes === true;
}

export async function listUsers(sql: Queryable): Promise<User[]> {
  return (await sql`select * from users order by username`).map(toUser);
}

export async function findUserForLogin(sql: Queryable, username: string) {
  const [row] = await sql`select * from users where username = ${username}`;
  return row ? { user: toUser(row), passwordHash: row.password_hash as string } : undefined;
}

/**
 * Updates role, missions and/or password; a password change ends the user's sessions except `keepSession`,
 * and revokes its login devices and known addresses (docs/auth.md, "Login throttling").
 * The last administrator cannot be made a user (409): with no administrator, first_signup would open again.
 */
export async function updateUser(
  db: Db,
  username: string,
  changes: { role?: Role; missions?: string[]; password?: string; email?: string | null },
  keepSession: string | null = null,
): Promise<User> {
  const hash = changes.password === undefined ? null : await hashPassword(changes.password);
  const rows = await db.transaction(async (tx) => {
    if (changes.role === 'user') {
      await tx`select pg_advisory_xact_lock(${ADMINS_LOCK})`;
      const [n] = await tx`
        select count(*) filter (where role = 'admin')::int as admins,
          coalesce(bool_or(username = ${username} and role = 'admin'), false) as is_admin
        from users`;
      if (n.is_admin && n.admins <= 1) {
        throw conflict(`'${username}' is the last administrator: make another user an administrator first.`);
      }
    }
    const updated = await tx`
      update users set
        role = coalesce(${changes.role ?? null}, role),
        missions = coalesce(${changes.missions ?? null}::text[], missions),
        email = case when ${changes.email !== undefined} then ${changes.email ?? null} else email end,
        password_hash = coalesce(${hash}, password_hash),
        updated_at = now()
      where username = ${username}
      returning *`;
    if (updated.length && hash) {
      await tx`delete from sessions where user_id = ${updated[0].id}
        and id_hash is distinct from ${keepSession === null ? null : sha256(keepSession)}`;
      await revokeLoginTrust(tx, username);
    }
    return updated;
  });
  if (!rows.length) throw notFound(`No user named '${username}'.`);
  return toUser(rows[0]);
}

/** Removes a user, with its sessions, tokens, login devices and known addresses (a later account of its name inherits none). */
export async function removeUser(sql: Queryable, username: string): Promise<void> {
  const rows = await sql`delete from users where username = ${username} returning id`;
  if (!rows.length) throw notFound(`No user named '${username}'.`);
  await revokeLoginTrust(sql, username);
}
