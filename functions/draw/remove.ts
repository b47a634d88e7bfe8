import { caller } from '#lib/draw/access.ts';
import { removeFeature } from '#lib/draw/features.ts';
import { asBody, int } from '#lib/draw/input.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { historyIds } from '#lib/http/openapi/shapes/draw.ts';
import { triggerWebhooks } from '#lib/webhooks/trigger.ts';

const options = { auth: 'user', body: 'json-or-form', responses: ok(historyIds) } as const;

export const handler = endpoint(options, async ({ body, principal, db }) => {
  const b = asBody(body);
  const fileId = int(b, 'file_id');
  const id = int(b, 'id');
  const s = await db.transaction((tx) => removeFeature(tx, caller(principal), fileId, id));
  await triggerWebhooks(db, 'DrawFileChange', fileId);
  return { status: 'success', message: 'Feature removed.', body: s.history };
});
