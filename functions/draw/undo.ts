import { caller } from '#lib/draw/access.ts';
import { undoTo } from '#lib/draw/features.ts';
import { asBody, int } from '#lib/draw/input.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { snapshotAnswer } from '#lib/http/openapi/shapes/draw.ts';
import { triggerWebhooks } from '#lib/webhooks/trigger.ts';

const options = { auth: 'user', body: 'json-or-form', responses: ok(snapshotAnswer) } as const;

export const handler = endpoint(options, async ({ body, principal, db }) => {
  const b = asBody(body);
  const fileId = int(b, 'file_id');
  const undoTime = int(b, 'undo_time');
  const s = await db.transaction((tx) => undoTo(tx, caller(principal), fileId, undoTime));
  await triggerWebhooks(db, 'DrawFileChange', fileId);
  return { status: 'success', message: 'Undo successful.', body: s };
});
