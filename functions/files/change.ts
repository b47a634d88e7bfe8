import { caller } from '#lib/draw/access.ts';
import { toFileAnswer } from '#lib/draw/fileAnswer.ts';
import { fileChanges } from '#lib/draw/fileInput.ts';
import { changeFile } from '#lib/draw/files.ts';
import { asBody, int } from '#lib/draw/input.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { fileAnswer } from '#lib/http/openapi/shapes/draw.ts';
import { triggerWebhooks } from '#lib/webhooks/trigger.ts';

const options = { auth: 'user', body: 'json-or-form', responses: ok(fileAnswer) } as const;

export const handler = endpoint(options, async ({ body, principal, db }) => {
  const b = asBody(body);
  const id = int(b, 'id');
  const changes = fileChanges(b);
  const file = await db.transaction((tx) => changeFile(tx, caller(principal), id, changes));
  await triggerWebhooks(db, 'DrawFileChange', id);
  return { status: 'success', message: 'Successfully changed file.', body: toFileAnswer(file) };
});
