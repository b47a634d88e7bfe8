import { toUser, type User } from '#lib/auth/users.ts';
import type { Db, Queryable } from '#lib/db/index.ts';

/**
 * The WebSocket connection table: who is connected, and to which missions they subscribed. Kept in the
 * database so any Lambda instance can push (no in-process state).
 */

/** API Gateway closes a WebSocket after 2 hours at most; older rows are leftovers of missed disconnects. */
const STALE = '3 hours';
/** The connections an address holds: those opened within API Gateway's 2 hours (older rows are leftovers). */
const OPEN_AT_MOST = '2 hours';

/** Advisory lock class of `$connect` per address (the second key is the address's hash). */
const CONNECT_LOCK = 727277;

/**
 * Records a new connection unless its address already holds `maxPerAddress` connections (docs/live-updates.md,
 * "Limits"): `false` then, and nothing is stored. The address's count and the insert run under a
 * transaction-scoped advisory lock on the address, so connections opened at once (each `$connect` in a
 * function instance of its own) are counted one after the other and cannot pass the cap together.
 */
export async function saveConnection(
  db: Db,
  input: {
    connectionId: string;
    userId: number | null;
    endpoint: string | null;
    sourceIp: string;
    maxPerAddress: number;
  },
): Promise<boolean> {
  const saved = await db.transaction(async (tx) => {
    await tx`select pg_advisory_xact_lock(${CONNECT_LOCK}::int, hashtext(${input.sourceIp}))`;
    const [row] = await tx`
      select count(*)::int as n from ws_connections
      where source_ip = ${input.sourceIp} and connection_id <> ${input.connectionId}
        and connected_at > now() - ${OPEN_AT_MOST}::interval`;
    if (Number(row.n) >= input.maxPerAddress) return false;
    await tx`
      insert into ws_connections (connection_id, user_id, endpoint, source_ip)
      values (${input.connectionId}, ${input.userId}, ${input.endpoint}, ${input.sourceIp})
      on conflict (connection_id) do update
        set user_id = excluded.user_id, endpoint = excluded.endpoint, source_ip = excluded.source_ip`;
    return true;
  });
  if (saved) await db.sql`delete from ws_connections where connected_at < now() - ${STALE}::interval`;
  return saved;
}

/**
 * Forgets the connections recorded for `endpoint` before `before`: a local WebSocket server that has just
 * started holds no connection, so rows of its management endpoint from earlier are leftovers of a server
 * stopped without its `$disconnect`s (they would count toward their address's cap).
 */
export async function forgetConnectionsOf(sql: Queryable, endpoint: string, before: Date): Promise<void> {
  await sql`delete from ws_connections where endpoint = ${endpoint} and connected_at < ${before.toISOString()}::timestamptz`;
}

export async function dropConnection(sql: Queryable, connectionId: string): Promise<void> {
  await sql`delete from ws_connections where connection_id = ${connectionId}`;
}

/**
 * Forgets a connection a push found gone (410), unless `$connect` recorded it in the last 30 seconds: the
 * gateway answers 410 for a connection whose `$connect` is still running (it is not open yet), and that
 * connection opens a moment later.
 */
export async function dropGoneConnection(sql: Queryable, connectionId: string): Promise<void> {
  await sql`
    delete from ws_connections
    where connection_id = ${connectionId} and connected_at < now() - interval '30 seconds'`;
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

/** The most missions one connection may subscribe to (docs/live-updates.md, "Limits"). */
export const MAX_SUBSCRIPTIONS = 20;

/**
 * Subscribes the connection to `mission` unless it already holds `MAX_SUBSCRIPTIONS` others. The
 * connection's row is locked first, so concurrent subscribes of one connection are counted one after the
 * other. `false` when the cap refused it (subscribing again to a held mission is `true`).
 */
export async function subscribe(db: Db, connectionId: string, mission: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    await tx`select 1 from ws_connections where connection_id = ${connectionId} for update`;
    const [row] = await tx`
      with existing as (
        select 1 from ws_subscriptions where connection_id = ${connectionId} and mission = ${mission}
      ), inserted as (
        insert into ws_subscriptions (connection_id, mission)
        select ${connectionId}, ${mission}
        where not exists (select 1 from existing)
          and (select count(*) from ws_subscriptions where connection_id = ${connectionId}) < ${MAX_SUBSCRIPTIONS}
        on conflict do nothing
        returning 1
      )
      select exists (select 1 from existing) or exists (select 1 from inserted) as ok`;
    return row.ok === true;
  });
}

/** Whether `mission` has a stored configuration (a subscription names an existing mission). */
export async function missionExists(sql: Queryable, mission: string): Promise<boolean> {
  const [row] = await sql`select exists (select 1 from configs where mission = ${mission}) as found`;
  return row.found === true;
}

/**
 * Counts one message of the connection in its window (`windowSeconds`, fixed) and answers the count so
 * far, with the connection's management endpoint; null for an unknown connection. One statement, so
 * concurrent messages of one connection all count.
 */
export async function countMessage(
  sql: Queryable,
  connectionId: string,
  windowSeconds: number,
): Promise<{ count: number; endpoint: string | null } | null> {
  const [row] = await sql`
    update ws_connections set
      msg_count = case when msg_window_start < now() - make_interval(secs => ${windowSeconds})
        then 1 else msg_count + 1 end,
      msg_window_start = case when msg_window_start < now() - make_interval(secs => ${windowSeconds})
        then now() else msg_window_start end
    where connection_id = ${connectionId}
    returning msg_count, endpoint`;
  return row ? { count: Number(row.msg_count), endpoint: row.endpoint as string | null } : null;
}

export async function unsubscribe(sql: Queryable, connectionId: string, mission: string): Promise<void> {
  await sql`delete from ws_subscriptions where connection_id = ${connectionId} and mission = ${mission}`;
}

export interface Subscriber {
  connectionId: string;
  endpoint: string | null;
}

/** A connection with its user as it is now (role and missions re-read; null when anonymous or removed). */
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

/** The connections subscribed to `mission`, each with its user as it is now (role and missions re-read). */
export async function subscribersOf(sql: Queryable, mission: string): Promise<Viewer[]> {
  const rows = await sql`
    select c.connection_id, c.endpoint, u.* from ws_subscriptions s
    join ws_connections c on c.connection_id = s.connection_id
    left join users u on u.id = c.user_id
    where s.mission = ${mission}`;
  return rows.map((r) => ({
    connectionId: r.connection_id as string,
    endpoint: r.endpoint as string | null,
    user: r.id == null ? null : toUser(r),
  }));
}
