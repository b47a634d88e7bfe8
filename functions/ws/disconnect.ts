import { getDb } from '#lib/db/index.ts';
import { onDisconnect, type SocketEvent } from '#lib/events/socket.ts';

/** WebSocket `$disconnect`: forgets the connection and its subscriptions. */
export const handler = (event: SocketEvent) => onDisconnect(getDb(), event);
