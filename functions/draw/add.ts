import { caller } from '#lib/draw/access.ts';
import { addFeature } from '#lib/draw/features.ts';
import { FEATURE_INTENTS } from '#lib/draw/files.ts';
import { validGeometry } from '#lib/draw/geometry.ts';
import { asBody, bool, idList, int, oneOf, optJson, optObject, optString } from '#lib/draw/input.ts';
import { badRequest } from '#lib/errors.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { writtenFeature } from '#lib/http/openapi/shapes/draw.ts';
import { triggerWebhooks } from '#lib/webhooks/trigger.ts';

const options = { auth: 'user', body: 'json-or-form', responses: ok(writtenFeature) } as const;

export const handler = endpoint(options, async ({ body, principal, db }) => {
  const b = asBody(body);
  const fileId = int(b, 'file_id');
  const geometry = validGeometry(optJson(b, 'geometry'), 'geometry');
  const order = optString(b, 'order');
  if (order !== undefined && order !== 'min' && order !== 'max' && !/^-?\d+(\.\d+)?$/.test(order)) {
    throw badRequest("Body field 'order' must be 'min', 'max' or a number.");
  }
  const input = {
    geometry,
    properties: optObject(b, 'properties'),
    intent: oneOf(b, 'intent', FEATURE_INTENTS) ?? null,
    order:
      order === 'min' || (order !== undefined && Number(order) < 0) ? ('min' as const) : ('max' as const),
    clip: oneOf(b, 'clip', ['over', 'under'] as const),
    toHistory: bool(b, 'to_history', true),
    bulkIds: idList(b, 'bulk_ids', false),
  };
  const w = await db.transaction((tx) => addFeature(tx, caller(principal), fileId, input));
  if (input.toHistory) await triggerWebhooks(db, 'DrawFileChange', fileId);
  return {
    status: 'success',
    message: 'Successfully added a new feature.',
    body: { id: w.id, uuid: w.uuid, intent: w.intent, ids: w.ids },
  };
});
