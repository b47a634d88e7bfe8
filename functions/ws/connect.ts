import { getDb } from '#lib/db/index.ts';
import { onConnect, type SocketEvent } from '#lib/events/socket.ts';

/** WebSocket `$connect`: records the connection and who opened it. */
export const handler = (event: SocketEvent) => onConnect(getDb(), event);
