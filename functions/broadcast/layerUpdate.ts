import { mission } from '#lib/configure/requests.ts';
import { readLatest } from '#lib/configure/store.ts';
import { notFound } from '#lib/errors.ts';
import { pushLayerRefresh } from '#lib/events/layerRefresh.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { layerUpdateAnswer } from '#lib/http/openapi/shapes/broadcast.ts';
import { log } from '#lib/log.ts';

const layerName = { type: 'string', minLength: 1, maxLength: 256 } as const;

const body = {
  type: 'object',
  required: ['mission', 'layerName'],
  properties: {
    mission,
    layerName: {
      description: "A layer's name (or uuid), or a list of them: what the client's `requeryLayers` is given.",
      anyOf: [layerName, { type: 'array', items: layerName, minItems: 1, maxItems: 1000 }],
    },
  },
} as const;

const options = {
  auth: 'admin',
  schema: { body },
  responses: ok(layerUpdateAnswer),
  summary: "Tells the mission's open maps to re-query layers over the WebSocket (docs/live-updates.md).",
} as const;

/**
 * POST /api/broadcast/layerUpdate {mission, layerName}: administrators, for a stored mission (an
 * administrator manages every mission here, as the established server's SuperAdmin; an unknown mission is
 * 404). Pushes the client's `refreshLayer` message to the mission's viewers and answers how many got it.
 */
export const handler = endpoint(options, async ({ body, db }) => {
  if (!(await readLatest(db.sql, body.mission))) throw notFound(`Unknown mission '${body.mission}'.`);
  const counts = await pushLayerRefresh(db.sql, body.mission, body.layerName);
  log('info', 'layer refresh broadcast', { mission: body.mission, ...counts });
  return {
    status: 'success',
    message: 'Layer refresh broadcasted.',
    broadcasted: true,
    connections: counts.sent,
  };
});
