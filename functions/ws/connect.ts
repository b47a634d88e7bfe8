import type { APIGatewayProxyEvent } from 'aws-lambda';
import { getDb } from '#lib/db/index.ts';
import { onConnect, type SocketEvent } from '#lib/events/socket.ts';
import { assertSameOrigin } from '#lib/http/middleware/sameOrigin.ts';

/**
 * WebSocket `$connect`: records the connection and who opened it. A session cookie sent from a page of
 * another origin is refused like a cross-site state-changing request (docs/auth.md): the messages carry
 * configurations only that user may read.
 */
export const handler = (event: SocketEvent) =>
  onConnect(getDb(), event, (principal) =>
    // Judged as a state-changing request is: the same rule, in one place.
    assertSameOrigin(
      { httpMethod: 'POST', headers: event.headers ?? {} } as unknown as APIGatewayProxyEvent,
      principal,
    ),
  );
