import { caller } from '#lib/draw/access.ts';
import { toFileAnswer } from '#lib/draw/fileAnswer.ts';
import { setHidden } from '#lib/draw/files.ts';
import { id } from '#lib/draw/schemas.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { fileAnswer } from '#lib/http/openapi/shapes/draw.ts';

const body = { type: 'object', required: ['id'], properties: { id } } as const;

const options = { auth: 'user', schema: { body }, responses: ok(fileAnswer) } as const;

export const handler = endpoint(options, async ({ body, principal, db }) => {
  const file = await db.transaction((tx) => setHidden(tx, caller(principal), body.id, false));
  return { status: 'success', message: 'File restored.', body: toFileAnswer(file) };
});
