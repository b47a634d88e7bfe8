import {
  ApiGatewayManagementApiClient,
  PostToConnectionCommand,
} from '@aws-sdk/client-apigatewaymanagementapi';
import type { Queryable } from '#lib/db/index.ts';
import { log } from '#lib/log.ts';
import { envText } from '#lib/settings.ts';
import { dropConnection, subscribersOf } from './connections.ts';

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
  return recorded || envText('WEBSOCKET_ENDPOINT') || null;
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
      region: envText('AWS_REGION') ?? 'us-east-1',
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

/**
 * Pushes `event` to every connection subscribed to its mission. Gone connections are deleted; other
 * failures are logged and never fail the change that triggered the push.
 */
export async function pushToMission(
  sql: Queryable,
  event: ConfigEvent,
): Promise<{ sent: number; gone: number; failed: number }> {
  const counts = { sent: 0, gone: 0, failed: 0 };
  const subscribers = await subscribersOf(sql, event.mission);
  await Promise.all(
    subscribers.map(async (s) => {
      const endpoint = managementEndpoint(s.endpoint);
      if (!endpoint) {
        counts.failed++;
        return;
      }
      try {
        const outcome = await postToConnection(endpoint, s.connectionId, event);
        counts[outcome]++;
        if (outcome === 'gone') await dropConnection(sql, s.connectionId);
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
