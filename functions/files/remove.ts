import { caller } from '#lib/draw/access.ts';
import { toFileAnswer } from '#lib/draw/fileAnswer.ts';
import { setHidden } from '#lib/draw/files.ts';
import { asBody, int } from '#lib/draw/input.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { fileAnswer } from '#lib/http/openapi/shapes/draw.ts';
import { triggerWebhooks } from '#lib/webhooks/trigger.ts';

const options = { auth: 'user', body: 'json-or-form', responses: ok(fileAnswer) } as const;

export const handler = endpoint(options, async ({ body, principal, db }) => {
  const id = int(asBody(body), 'id');
  const file = await db.transaction((tx) => setHidden(tx, caller(principal), id, true));
  await triggerWebhooks(db, 'DrawFileDelete', id);
  return { status: 'success', message: 'File removed.', body: toFileAnswer(file) };
});
