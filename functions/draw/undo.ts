import { caller } from '#lib/draw/access.ts';
import { undoTo } from '#lib/draw/features.ts';
import { epochMs, id } from '#lib/draw/schemas.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { snapshotAnswer } from '#lib/http/openapi/shapes/draw.ts';
import { triggerWebhooks } from '#lib/webhooks/trigger.ts';

const body = {
  type: 'object',
  required: ['file_id', 'undo_time'],
  properties: { file_id: id, undo_time: epochMs },
} as const;

const options = { auth: 'user', schema: { body }, responses: ok(snapshotAnswer) } as const;

export const handler = endpoint(options, async ({ body, principal, db }) => {
  const s = await db.transaction((tx) => undoTo(tx, caller(principal), body.file_id, body.undo_time));
  await triggerWebhooks(db, 'DrawFileChange', body.file_id);
  return { status: 'success', message: 'Undo successful.', body: s };
});
