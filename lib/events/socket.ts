import { assertMissionName } from '#lib/auth/missionName.ts';
import { authMode, canViewMission } from '#lib/auth/permissions.ts';
import { type Principal, resolvePrincipal } from '#lib/auth/principal.ts';
import type { Db } from '#lib/db/index.ts';
import { HttpError } from '#lib/errors.ts';
import { log } from '#lib/log.ts';
import { envText } from '#lib/settings.ts';
import { connectionUser, dropConnection, saveConnection, subscribe, unsubscribe } from './connections.ts';
import { endpointFromRequestContext } from './push.ts';

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
  requestContext: { connectionId: string; domainName?: string; stage?: string; routeKey?: string };
}

export interface SocketResult {
  statusCode: number;
  body?: string;
}

const reply = (statusCode: number, body: Record<string, unknown>): SocketResult => ({
  statusCode,
  body: JSON.stringify(body),
});

/**
 * `$connect`. `checkPrincipal` may refuse the connection by throwing an HttpError (the handler refuses a
 * session cookie sent from another site's page, docs/auth.md).
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
  await saveConnection(db.sql, {
    connectionId: event.requestContext.connectionId,
    userId,
    // Where this connection lives: pushes from any instance go there.
    endpoint: envText('WEBSOCKET_ENDPOINT') ?? endpointFromRequestContext(event.requestContext),
  });
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

export async function onMessage(db: Db, event: SocketEvent): Promise<SocketResult> {
  const connectionId = event.requestContext.connectionId;
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
  await subscribe(db.sql, connectionId, mission);
  return reply(200, { type: 'subscribed', mission });
}
