import { caller } from '#lib/draw/access.ts';
import { mergeFeatures } from '#lib/draw/features.ts';
import { featureIds, id, idList, idsText, LIMITS } from '#lib/draw/schemas.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { jsonField, jsonOr } from '#lib/http/jsonField.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { idsAnswer } from '#lib/http/openapi/shapes/draw.ts';
import { triggerWebhooks } from '#lib/webhooks/trigger.ts';

const body = {
  type: 'object',
  required: ['file_id', 'prop_id', 'ids'],
  properties: { file_id: id, prop_id: id, ids: jsonOr(featureIds, idsText(LIMITS.featureIds)) },
} as const;

const options = { auth: 'user', schema: { body }, responses: ok(idsAnswer) } as const;

export const handler = endpoint(options, async ({ body, principal, db }) => {
  const list = idList(jsonField(body.ids, 'ids', featureIds));
  const newIds = await db.transaction((tx) =>
    mergeFeatures(tx, caller(principal), body.file_id, body.prop_id, list),
  );
  await triggerWebhooks(db, 'DrawFileChange', body.file_id);
  return { status: 'success', message: 'Successfully merged features.', body: { ids: newIds } };
});
