import { caller } from '#lib/draw/access.ts';
import { removeFeature } from '#lib/draw/features.ts';
import { id } from '#lib/draw/schemas.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { historyIds } from '#lib/http/openapi/shapes/draw.ts';
import { triggerWebhooks } from '#lib/webhooks/trigger.ts';

const body = { type: 'object', required: ['file_id', 'id'], properties: { file_id: id, id } } as const;

const options = { auth: 'user', schema: { body }, responses: ok(historyIds) } as const;

export const handler = endpoint(options, async ({ body, principal, db }) => {
  const s = await db.transaction((tx) => removeFeature(tx, caller(principal), body.file_id, body.id));
  await triggerWebhooks(db, 'DrawFileChange', body.file_id);
  return { status: 'success', message: 'Feature removed.', body: s.history };
});
