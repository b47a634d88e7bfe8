import { toUser, type User } from '#lib/auth/users.ts';
import type { Queryable } from '#lib/db/index.ts';

/**
 * The WebSocket connection table: who is connected, and to which missions they subscribed. Kept in the
 * database so any Lambda instance can push (no in-process state).
 */

/** API Gateway closes a WebSocket after 2 hours at most; older rows are leftovers of missed disconnects. */
const STALE = '3 hours';

export async function saveConnection(
  sql: Queryable,
  input: { connectionId: string; userId: number | null; endpoint: string | null },
): Promise<void> {
  await sql`
    insert into ws_connections (connection_id, user_id, endpoint)
    values (${input.connectionId}, ${input.userId}, ${input.endpoint})
    on conflict (connection_id) do update set user_id = excluded.user_id, endpoint = excluded.endpoint`;
  await sql`delete from ws_connections where connected_at < now() - ${STALE}::interval`;
}

export async function dropConnection(sql: Queryable, connectionId: string): Promise<void> {
  await sql`delete from ws_connections where connection_id = ${connectionId}`;
}

/** The connection's user as it is now (role and missions re-read); `known: false` for no such connection. */
export async function connectionUser(
  sql: Queryable,
  connectionId: string,
): Promise<{ known: boolean; user: User | null }> {
  const [row] = await sql`
    select c.connection_id, u.* from ws_connections c left join users u on u.id = c.user_id
    where c.connection_id = ${connectionId}`;
  if (!row) return { known: false, user: null };
  return { known: true, user: row.id == null ? null : toUser(row) };
}

export async function subscribe(sql: Queryable, connectionId: string, mission: string): Promise<void> {
  await sql`
    insert into ws_subscriptions (connection_id, mission) values (${connectionId}, ${mission})
    on conflict do nothing`;
}

export async function unsubscribe(sql: Queryable, connectionId: string, mission: string): Promise<void> {
  await sql`delete from ws_subscriptions where connection_id = ${connectionId} and mission = ${mission}`;
}

export interface Subscriber {
  connectionId: string;
  endpoint: string | null;
}

/** A connection that never subscribed: it gets the MMGIS client's messages (docs/live-updates.md). */
export interface Viewer extends Subscriber {
  user: User | null;
}

/**
 * Every connection that has not subscribed to a mission (subscribers get the older `{type:'config'}`
 * events of their missions instead), with its user as it is now (role and missions re-read).
 */
export async function viewerConnections(sql: Queryable): Promise<Viewer[]> {
  const rows = await sql`
    select c.connection_id, c.endpoint, u.* from ws_connections c left join users u on u.id = c.user_id
    where not exists (select 1 from ws_subscriptions s where s.connection_id = c.connection_id)`;
  return rows.map((r) => ({
    connectionId: r.connection_id as string,
    endpoint: r.endpoint as string | null,
    user: r.id == null ? null : toUser(r),
  }));
}

export async function subscribersOf(sql: Queryable, mission: string): Promise<Subscriber[]> {
  const rows = await sql`
    select c.connection_id, c.endpoint from ws_subscriptions s
    join ws_connections c on c.connection_id = s.connection_id
    where s.mission = ${mission}`;
  return rows.map((r) => ({
    connectionId: r.connection_id as string,
    endpoint: r.endpoint as string | null,
  }));
}
