import { toFileAnswer } from '#lib/draw/fileAnswer.ts';
import { reassign } from '#lib/draw/owners.ts';
import { id, username } from '#lib/draw/schemas.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { fileAnswer } from '#lib/http/openapi/shapes/draw.ts';

const body = { type: 'object', required: ['id', 'username'], properties: { id, username } } as const;

/** An administrator gives a draw file to an account (docs/draw.md, "Ownership"). */
const options = { auth: 'admin', schema: { body }, responses: ok(fileAnswer) } as const;

export const handler = endpoint(options, async ({ body, db }) => {
  const file = await db.transaction((tx) => reassign(tx, body.id, body.username));
  return {
    status: 'success',
    message: `File ${body.id} now belongs to '${body.username}'.`,
    body: toFileAnswer(file),
  };
});
