import { assertMissionName } from '#lib/auth/missionName.ts';
import { authMode, canViewMission } from '#lib/auth/permissions.ts';
import { type Principal, resolvePrincipal } from '#lib/auth/principal.ts';
import type { Db } from '#lib/db/index.ts';
import { HttpError } from '#lib/errors.ts';
import { log } from '#lib/log.ts';
import { setting } from '#lib/settings.ts';
import {
  connectionUser,
  countMessage,
  dropConnection,
  MAX_SUBSCRIPTIONS,
  missionExists,
  saveConnection,
  subscribe,
  unsubscribe,
} from './connections.ts';
import { closeConnection, endpointFromRequestContext, managementEndpoint, postToConnection } from './push.ts';

/**
 * The WebSocket routes ($connect, $disconnect, $default) as plain functions of the gateway event
 * (docs/live-updates.md). A client connects (its session cookie or Bearer token decides who it is) and
 * from then on receives the MMGIS client's messages for every mission it may view. A client that sends
 * `{action:'subscribe', mission}` (it receives `{type:'subscribed', mission}` or `{type:'error', message}`)
 * gets the older `{type:'config'}` events of its subscribed missions instead.
 */
export interface SocketEvent {
  headers?: Record<string, string | undefined> | null;
  body?: string | null;
  isBase64Encoded?: boolean;
  requestContext: {
    connectionId: string;
    domainName?: string;
    stage?: string;
    routeKey?: string;
    /** The address that opened the connection (API Gateway's, and serverless-offline's, `$connect`). */
    identity?: { sourceIp?: string | null } | null;
  };
}

export interface SocketResult {
  statusCode: number;
  body?: string;
}

const reply = (statusCode: number, body: Record<string, unknown>): SocketResult => ({
  statusCode,
  body: JSON.stringify(body),
});

/** The most connections one address may hold open (`WEBSOCKET_MAX_PER_ADDRESS`, default 20). */
export function maxConnectionsPerAddress(): number {
  return setting('WEBSOCKET_MAX_PER_ADDRESS');
}

/** The address that opened the connection; connections whose event names none share one count. */
function sourceAddress(event: SocketEvent): string {
  return event.requestContext.identity?.sourceIp || 'unknown';
}

/**
 * `$connect` (docs/live-updates.md, "Who receives what" and "Limits"). `checkPrincipal` may refuse the
 * connection by throwing an HttpError (the handler refuses a session cookie sent from another site's page,
 * docs/auth.md). Under `AUTH=local` an anonymous connection is refused (401): it would receive nothing.
 * An address that already holds `WEBSOCKET_MAX_PER_ADDRESS` connections is refused (429).
 */
export async function onConnect(
  db: Db,
  event: SocketEvent,
  checkPrincipal: (principal: Principal) => void = () => {},
): Promise<SocketResult> {
  let userId: number | null = null;
  try {
    const principal = await resolvePrincipal(db.sql, event.headers ?? {});
    checkPrincipal(principal);
    userId = principal.user?.id ?? null;
  } catch (e) {
    // An invalid or expired Bearer token refuses the connection, as it would an HTTP request.
    if (e instanceof HttpError) log('info', 'websocket connection refused', { message: e.message });
    if (e instanceof HttpError) return reply(e.statusCode, { type: 'error', message: e.message });
    throw e;
  }
  if (userId === null && authMode() === 'local') {
    log('info', 'websocket connection refused: anonymous', {});
    return reply(401, {
      type: 'error',
      message: 'Log in (session cookie or Bearer token on connect) to open a WebSocket.',
    });
  }
  const sourceIp = sourceAddress(event);
  const maxPerAddress = maxConnectionsPerAddress();
  const saved = await saveConnection(db, {
    connectionId: event.requestContext.connectionId,
    userId,
    // Where this connection lives: pushes from any instance go there.
    endpoint: setting('WEBSOCKET_ENDPOINT') ?? endpointFromRequestContext(event.requestContext),
    sourceIp,
    maxPerAddress,
  });
  if (!saved) {
    log('info', 'websocket connection refused: too many from one address', { sourceIp });
    return reply(429, {
      type: 'error',
      message: `At most ${maxPerAddress} WebSocket connections from one address: close one first.`,
    });
  }
  return { statusCode: 200 };
}

export async function onDisconnect(db: Db, event: SocketEvent): Promise<SocketResult> {
  await dropConnection(db.sql, event.requestContext.connectionId);
  return { statusCode: 200 };
}

function parseMessage(event: SocketEvent): Record<string, unknown> | null {
  const text = event.isBase64Encoded ? Buffer.from(event.body ?? '', 'base64').toString('utf8') : event.body;
  try {
    const msg = JSON.parse(text ?? '');
    return typeof msg === 'object' && msg !== null && !Array.isArray(msg) ? msg : null;
  } catch {
    return null;
  }
}

/** The window in which a connection's messages are counted (docs/live-updates.md, "Limits"). */
export const MESSAGE_WINDOW_SECONDS = 10;

/** The most messages a connection may send in one window (`WEBSOCKET_MAX_MESSAGES`, default 30). */
export function maxMessages(): number {
  return setting('WEBSOCKET_MAX_MESSAGES');
}

/**
 * Counts the message; past the limit tells the client why, closes the connection and forgets it.
 * Answers the result to return, or null when the message may be handled.
 */
async function overLimit(db: Db, connectionId: string): Promise<SocketResult | null> {
  const counted = await countMessage(db.sql, connectionId, MESSAGE_WINDOW_SECONDS);
  if (!counted) return reply(410, { type: 'error', message: 'Unknown connection: reconnect.' });
  const limit = maxMessages();
  if (counted.count <= limit) return null;
  log('info', 'websocket connection closed: too many messages', { connectionId, count: counted.count });
  const endpoint = managementEndpoint(counted.endpoint);
  if (endpoint) {
    const message = `More than ${limit} messages in ${MESSAGE_WINDOW_SECONDS} seconds: connection closed.`;
    try {
      await postToConnection(endpoint, connectionId, { type: 'error', status: 429, message });
      await closeConnection(endpoint, connectionId);
    } catch (e) {
      log('warn', 'websocket close failed', { connectionId, error: (e as Error).message });
    }
  }
  await dropConnection(db.sql, connectionId);
  return { statusCode: 429 };
}

export async function onMessage(db: Db, event: SocketEvent): Promise<SocketResult> {
  const connectionId = event.requestContext.connectionId;
  const limited = await overLimit(db, connectionId);
  if (limited) return limited;
  const msg = parseMessage(event);
  if (!msg)
    return reply(400, {
      type: 'error',
      message: 'Send a JSON object such as {"action":"subscribe","mission":"..."}.',
    });
  const action = msg.action;
  if (action === 'ping') return reply(200, { type: 'pong' });
  if (action !== 'subscribe' && action !== 'unsubscribe') {
    return reply(400, {
      type: 'error',
      message: "Unknown 'action': use 'subscribe', 'unsubscribe' or 'ping'.",
    });
  }
  let mission: string;
  try {
    mission = assertMissionName(msg.mission);
  } catch (e) {
    return reply(400, { type: 'error', action, message: (e as Error).message });
  }
  const { known, user } = await connectionUser(db.sql, connectionId);
  if (!known)
    return reply(410, { type: 'error', action, mission, message: 'Unknown connection: reconnect.' });
  if (action === 'unsubscribe') {
    await unsubscribe(db.sql, connectionId, mission);
    return reply(200, { type: 'unsubscribed', mission });
  }
  const principal = { user, via: null, sessionCookie: null };
  if (!canViewMission(principal, mission)) {
    log('info', 'websocket subscribe refused', { connectionId, mission });
    const status = authMode() === 'local' && !user ? 401 : 403;
    return reply(status, {
      type: 'error',
      action,
      mission,
      message: user
        ? `You may not view mission '${mission}'.`
        : 'Log in (session cookie or Bearer token on connect) to subscribe.',
    });
  }
  if (!(await missionExists(db.sql, mission))) {
    return reply(404, { type: 'error', action, mission, message: `Mission '${mission}' not found.` });
  }
  if (!(await subscribe(db, connectionId, mission))) {
    return reply(429, {
      type: 'error',
      action,
      mission,
      message: `A connection subscribes to at most ${MAX_SUBSCRIPTIONS} missions: unsubscribe from one first.`,
    });
  }
  return reply(200, { type: 'subscribed', mission });
}
