import { caller } from '#lib/draw/access.ts';
import { splitFeatures } from '#lib/draw/features.ts';
import { isLinear, validGeometry } from '#lib/draw/geometry.ts';
import { featureIds, geometry, id, idList, idsText, LIMITS } from '#lib/draw/schemas.ts';
import { badRequest } from '#lib/errors.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { jsonField, jsonOr } from '#lib/http/jsonField.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { idsAnswer } from '#lib/http/openapi/shapes/draw.ts';
import { triggerWebhooks } from '#lib/webhooks/trigger.ts';

const body = {
  type: 'object',
  required: ['file_id', 'split', 'ids'],
  properties: {
    file_id: id,
    /** The blade: a LineString or MultiLineString, or a Feature of one. */
    split: jsonOr(geometry, LIMITS.geometryText),
    ids: jsonOr(featureIds, idsText(LIMITS.featureIds)),
  },
} as const;

const options = { auth: 'user', schema: { body }, responses: ok(idsAnswer) } as const;

export const handler = endpoint(options, async ({ body, principal, db }) => {
  const blade = validGeometry(jsonField(body.split, 'split', geometry), 'split', true);
  if (!isLinear(blade)) throw badRequest("Body field 'split' must be a LineString or MultiLineString.");
  const list = idList(jsonField(body.ids, 'ids', featureIds));
  const newIds = await db.transaction((tx) =>
    splitFeatures(tx, caller(principal), body.file_id, list, blade),
  );
  await triggerWebhooks(db, 'DrawFileChange', body.file_id);
  return { status: 'success', message: 'Successfully split features.', body: { ids: newIds } };
});
