import { caller } from '#lib/draw/access.ts';
import { toFileAnswer } from '#lib/draw/fileAnswer.ts';
import { fileFields, fileFieldsSchema } from '#lib/draw/fileFields.ts';
import { changeFile } from '#lib/draw/files.ts';
import { id } from '#lib/draw/schemas.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { fileAnswer } from '#lib/http/openapi/shapes/draw.ts';
import { triggerWebhooks } from '#lib/webhooks/trigger.ts';

const body = {
  type: 'object',
  required: ['id'],
  properties: { id, ...fileFieldsSchema },
} as const;

const options = { auth: 'user', schema: { body }, responses: ok(fileAnswer) } as const;

export const handler = endpoint(options, async ({ body, principal, db }) => {
  const changes = fileFields(body);
  const file = await db.transaction((tx) => changeFile(tx, caller(principal), body.id, changes));
  await triggerWebhooks(db, 'DrawFileChange', body.id);
  return { status: 'success', message: 'Successfully changed file.', body: toFileAnswer(file) };
});
