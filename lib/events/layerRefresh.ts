import type { Queryable } from '#lib/db/index.ts';
import { type ClientMessage, type PushCounts, pushToViewers } from './push.ts';

/**
 * The message that asks the MMGIS web client to re-query layers (docs/live-updates.md, "Layer refresh"):
 * the established server's notify-only envelope. The client of that mission calls its `requeryLayers` with
 * the names (one name is a list of one) and re-reads neither the configuration nor anything else.
 * `info.mission`, as in the configuration messages, is what `pushToViewers` judges each viewer by; the
 * client reads `body.mission`.
 */
export interface RefreshLayerMessage {
  info: { type: 'refreshLayer'; layerName: string | string[]; mission: string };
  body: { mission: string };
}

export function refreshLayerMessage(mission: string, layerName: string | string[]): RefreshLayerMessage {
  return { info: { type: 'refreshLayer', layerName, mission }, body: { mission } };
}

/**
 * Sends the refresh to every connection that may view `mission`, as the configuration messages go
 * (`pushToViewers`: not to older subscribe-protocol clients, never to a user who may not view it).
 */
export function pushLayerRefresh(
  sql: Queryable,
  mission: string,
  layerName: string | string[],
): Promise<PushCounts> {
  const message = refreshLayerMessage(mission, layerName);
  // ClientMessage types the configuration changes' messages; this one takes the same route to the same
  // connections, and `fitMessage` sends it as it is (it carries no configuration to leave out).
  return pushToViewers(sql, message as unknown as ClientMessage);
}
