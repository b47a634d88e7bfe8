import { caller } from '#lib/draw/access.ts';
import { splitFeatures } from '#lib/draw/features.ts';
import { isLinear, validGeometry } from '#lib/draw/geometry.ts';
import { asBody, idList, int, optJson } from '#lib/draw/input.ts';
import { badRequest } from '#lib/errors.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { idsAnswer } from '#lib/http/openapi/shapes/draw.ts';
import { triggerWebhooks } from '#lib/webhooks/trigger.ts';

const options = { auth: 'user', body: 'json-or-form', responses: ok(idsAnswer) } as const;

export const handler = endpoint(options, async ({ body, principal, db }) => {
  const b = asBody(body);
  const fileId = int(b, 'file_id');
  const blade = validGeometry(optJson(b, 'split'), 'split', true);
  if (!isLinear(blade)) throw badRequest("Body field 'split' must be a LineString or MultiLineString.");
  const ids = idList(b, 'ids');
  const newIds = await db.transaction((tx) => splitFeatures(tx, caller(principal), fileId, ids, blade));
  await triggerWebhooks(db, 'DrawFileChange', fileId);
  return { status: 'success', message: 'Successfully split features.', body: { ids: newIds } };
});
