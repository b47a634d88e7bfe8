import { caller } from '#lib/draw/access.ts';
import { splitFeatures } from '#lib/draw/features.ts';
import { isLinear, validGeometry } from '#lib/draw/geometry.ts';
import { featureIds, geometryField, id } from '#lib/draw/schemas.ts';
import { badRequest } from '#lib/errors.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { idsAnswer } from '#lib/http/openapi/shapes/draw.ts';
import { triggerWebhooks } from '#lib/webhooks/trigger.ts';

/** The blade: a LineString or MultiLineString, or a Feature of one. */
const split = geometryField('split');
const ids = featureIds('ids');

const body = {
  type: 'object',
  required: ['file_id', 'split', 'ids'],
  properties: { file_id: id, split: split.schema, ids: ids.schema },
} as const;

const options = { auth: 'user', schema: { body }, responses: ok(idsAnswer) } as const;

export const handler = endpoint(options, async ({ body, principal, db }) => {
  const blade = validGeometry(split.read(body.split), 'split', true);
  if (!isLinear(blade)) throw badRequest("Body field 'split' must be a LineString or MultiLineString.");
  const list = ids.read(body.ids);
  const newIds = await db.transaction((tx) =>
    splitFeatures(tx, caller(principal), body.file_id, list, blade),
  );
  await triggerWebhooks(db, 'DrawFileChange', body.file_id);
  return { status: 'success', message: 'Successfully split features.', body: { ids: newIds } };
});
