import { caller } from '#lib/draw/access.ts';
import { mergeFeatures } from '#lib/draw/features.ts';
import { asBody, idList, int } from '#lib/draw/input.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { idsAnswer } from '#lib/http/openapi/shapes/draw.ts';
import { triggerWebhooks } from '#lib/webhooks/trigger.ts';

const options = { auth: 'user', body: 'json-or-form', responses: ok(idsAnswer) } as const;

export const handler = endpoint(options, async ({ body, principal, db }) => {
  const b = asBody(body);
  const fileId = int(b, 'file_id');
  const propId = int(b, 'prop_id');
  const ids = idList(b, 'ids');
  const newIds = await db.transaction((tx) => mergeFeatures(tx, caller(principal), fileId, propId, ids));
  await triggerWebhooks(db, 'DrawFileChange', fileId);
  return { status: 'success', message: 'Successfully merged features.', body: { ids: newIds } };
});
