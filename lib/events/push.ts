import {
  ApiGatewayManagementApiClient,
  DeleteConnectionCommand,
  PostToConnectionCommand,
} from '@aws-sdk/client-apigatewaymanagementapi';
import { canViewMission } from '#lib/auth/permissions.ts';
import type { Queryable } from '#lib/db/index.ts';
import { log } from '#lib/log.ts';
import { setting } from '#lib/settings.ts';
import { dropGoneConnection, type Subscriber, subscribersOf, viewerConnections } from './connections.ts';

/** The payload pushed for a configuration change (docs/configure.md, "Events"). */
export interface ConfigEvent {
  type: 'config';
  action: 'upsert' | 'addLayer' | 'updateLayer' | 'removeLayer' | 'updateInitialView';
  mission: string;
  version: number;
  layerUUIDs?: string[];
  forceClientUpdate: true;
}

/**
 * The management endpoint of a connection's WebSocket API, recorded at `$connect`: `WEBSOCKET_ENDPOINT`
 * when set (locally serverless-offline's `http://127.0.0.1:<websocketPort>`, no stage), else
 * `https://<domainName>/<stage>` of the connect event. The current setting is the fallback.
 */
export function managementEndpoint(recorded: string | null): string | null {
  return recorded || setting('WEBSOCKET_ENDPOINT') || null;
}

export function endpointFromRequestContext(
  ctx: { domainName?: string; stage?: string } | undefined,
): string | null {
  if (!ctx?.domainName) return null;
  return `https://${ctx.domainName}${ctx.stage ? `/${ctx.stage}` : ''}`;
}

const clients = new Map<string, ApiGatewayManagementApiClient>();

function clientFor(endpoint: string): ApiGatewayManagementApiClient {
  let client = clients.get(endpoint);
  if (!client) {
    client = new ApiGatewayManagementApiClient({
      endpoint,
      region: setting('AWS_REGION'),
      maxAttempts: 2,
    });
    clients.set(endpoint, client);
  }
  return client;
}

const isGone = (e: any) => e?.name === 'GoneException' || e?.$metadata?.httpStatusCode === 410;

/** Sends `data` to one connection; `'gone'` when the connection no longer exists (410). */
export async function postToConnection(
  endpoint: string,
  connectionId: string,
  data: unknown,
): Promise<'sent' | 'gone'> {
  try {
    await clientFor(endpoint).send(
      new PostToConnectionCommand({
        ConnectionId: connectionId,
        Data: new TextEncoder().encode(typeof data === 'string' ? data : JSON.stringify(data)),
      }),
    );
    return 'sent';
  } catch (e) {
    if (isGone(e)) return 'gone';
    throw e;
  }
}

/** Closes one connection (API Gateway then runs `$disconnect`); a connection already gone is no error. */
export async function closeConnection(endpoint: string, connectionId: string): Promise<void> {
  try {
    await clientFor(endpoint).send(new DeleteConnectionCommand({ ConnectionId: connectionId }));
  } catch (e) {
    if (!isGone(e)) throw e;
  }
}

/**
 * The message the MMGIS web client reacts to (docs/live-updates.md): `info.type` `addLayer`,
 * `updateLayer` or `removeLayer` with the layers' uuids in `info.layerName` makes it re-read the
 * configuration and add, reload or remove those layers (at once when `forceClientUpdate`, else behind its
 * update button); any other type with `body.config` shows its reload button. `info.route: 'config'` with
 * the `id` the configure app sent makes other configure pages of that mission ask for a refresh.
 */
export interface ClientMessage {
  info: {
    type: 'upsert' | 'addLayer' | 'updateLayer' | 'removeLayer';
    layerName?: string | string[];
    route?: 'config';
    id?: string | number;
    mission: string;
  };
  body: { mission: string; version?: number; config?: unknown; configTooLarge?: true };
  forceClientUpdate: boolean;
}

/** API Gateway refuses WebSocket messages over 128 KB: a larger configuration is left out of the message. */
export const MAX_MESSAGE_BYTES = 120 * 1024;

/** `message` as sent: without `body.config` (and with `configTooLarge`) when it would not fit. */
export function fitMessage(message: ClientMessage): string {
  const text = JSON.stringify(message);
  if (Buffer.byteLength(text) <= MAX_MESSAGE_BYTES || message.body.config === undefined) return text;
  const { config: _config, ...body } = message.body;
  return JSON.stringify({ ...message, body: { ...body, config: {}, configTooLarge: true } });
}

export interface PushCounts {
  sent: number;
  gone: number;
  failed: number;
}

/**
 * Pushes `message` to every connection that has not subscribed and whose user may view its mission
 * (everyone under `AUTH=none`; under `AUTH=local` admins and users listing the mission, never anonymous
 * connections). Gone connections are deleted; failures are logged and never fail the change.
 */
export async function pushToViewers(sql: Queryable, message: ClientMessage): Promise<PushCounts> {
  const mission = message.info.mission;
  const viewers = (await viewerConnections(sql)).filter((v) =>
    canViewMission({ user: v.user, via: null, sessionCookie: null }, mission),
  );
  return sendAll(sql, viewers, fitMessage(message));
}

/**
 * Pushes `event` to every connection subscribed to its mission whose user may still view it, judged now
 * with the user's current role and missions (a user removed from the mission, or removed, gets nothing
 * more). Gone connections are deleted; other failures are logged and never fail the change.
 */
export async function pushToMission(sql: Queryable, event: ConfigEvent): Promise<PushCounts> {
  const subscribers = (await subscribersOf(sql, event.mission)).filter((s) =>
    canViewMission({ user: s.user, via: null, sessionCookie: null }, event.mission),
  );
  return sendAll(sql, subscribers, event);
}

async function sendAll(sql: Queryable, targets: Subscriber[], data: unknown): Promise<PushCounts> {
  const counts = { sent: 0, gone: 0, failed: 0 };
  await Promise.all(
    targets.map(async (s) => {
      const endpoint = managementEndpoint(s.endpoint);
      if (!endpoint) {
        counts.failed++;
        return;
      }
      try {
        const outcome = await postToConnection(endpoint, s.connectionId, data);
        counts[outcome]++;
        if (outcome === 'gone') await dropGoneConnection(sql, s.connectionId);
      } catch (e) {
        counts.failed++;
        log('warn', 'websocket push failed', {
          connectionId: s.connectionId,
          error: e instanceof Error ? e.message : String(e),
        });
      }
    }),
  );
  return counts;
}
