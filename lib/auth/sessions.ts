import type { Queryable } from '#lib/db/index.ts';
import { setting } from '#lib/settings.ts';
import { newSecret, sha256 } from './secrets.ts';
import { toUser, type User } from './users.ts';

export const SESSION_COOKIE = 'MMGISSession';

export function sessionTtlMs(): number {
  return setting('SESSION_TTL_MS');
}

/** Opens a session and returns the cookie value (stored only as its hash). */
export async function createSession(
  sql: Queryable,
  userId: number,
): Promise<{ value: string; expiresAt: Date }> {
  const value = newSecret();
  const expiresAt = new Date(Date.now() + sessionTtlMs());
  await sql`insert into sessions (id_hash, user_id, expires_at) values (${sha256(value)}, ${userId}, ${expiresAt})`;
  // Housekeeping in passing: expired sessions are useless.
  await sql`delete from sessions where expires_at < now() - interval '1 day'`;
  return { value, expiresAt };
}

export async function userForSession(sql: Queryable, value: string): Promise<User | undefined> {
  const [row] = await sql`
    select u.* from sessions s join users u on u.id = s.user_id
    where s.id_hash = ${sha256(value)} and s.expires_at > now()`;
  return row ? toUser(row) : undefined;
}

export async function endSession(sql: Queryable, value: string): Promise<void> {
  await sql`delete from sessions where id_hash = ${sha256(value)}`;
}
