import { successWith } from '../describe.ts';
import { integer, string } from '../json.ts';

/** Response shapes of /api/broadcast (docs/live-updates.md, "Layer refresh"). */

/**
 * `broadcasted`: the established server's field (false there when its WebSocket server is off; always
 * true here, the WebSocket API being part of the service); `connections`: how many received the message.
 */
export const layerUpdateAnswer = successWith(
  { message: string, broadcasted: { type: 'boolean' }, connections: integer },
  ['message', 'broadcasted', 'connections'],
);
