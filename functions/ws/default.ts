import { getDb } from '#lib/db/index.ts';
import { onMessage, type SocketEvent } from '#lib/events/socket.ts';

/** WebSocket `$default`: `{action:'subscribe'|'unsubscribe', mission}` and `{action:'ping'}`. */
export const handler = (event: SocketEvent) => onMessage(getDb(), event);
