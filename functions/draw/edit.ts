import { caller } from '#lib/draw/access.ts';
import { editFeature } from '#lib/draw/features.ts';
import { FEATURE_INTENTS } from '#lib/draw/files.ts';
import { validGeometry } from '#lib/draw/geometry.ts';
import { asBody, bool, int, oneOf, optJson, optObject } from '#lib/draw/input.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { writtenFeature } from '#lib/http/openapi/shapes/draw.ts';
import { triggerWebhooks } from '#lib/webhooks/trigger.ts';

const options = { auth: 'user', body: 'json-or-form', responses: ok(writtenFeature) } as const;

export const handler = endpoint(options, async ({ body, principal, db }) => {
  const b = asBody(body);
  const fileId = int(b, 'file_id');
  const geometry = optJson(b, 'geometry');
  const input = {
    featureId: int(b, 'feature_id'),
    geometry: geometry === undefined ? undefined : validGeometry(geometry, 'geometry'),
    properties: optObject(b, 'properties'),
    intent: b.intent === undefined ? undefined : (oneOf(b, 'intent', FEATURE_INTENTS) ?? null),
    reassignUUID: bool(b, 'reassignUUID', false),
  };
  const w = await db.transaction((tx) => editFeature(tx, caller(principal), fileId, input));
  await triggerWebhooks(db, 'DrawFileChange', fileId);
  return {
    status: 'success',
    message: 'Successfully edited feature.',
    body: { id: w.id, uuid: w.uuid, intent: w.intent },
  };
});
