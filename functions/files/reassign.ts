import { toFileAnswer } from '#lib/draw/fileAnswer.ts';
import { asBody, int, optString } from '#lib/draw/input.ts';
import { reassign } from '#lib/draw/owners.ts';
import { badRequest } from '#lib/errors.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { fileAnswer } from '#lib/http/openapi/shapes/draw.ts';

/** An administrator gives a draw file to an account (docs/draw.md, "Ownership"). */
const options = { auth: 'admin', body: 'json-or-form', responses: ok(fileAnswer) } as const;

export const handler = endpoint(options, async ({ body, db }) => {
  const b = asBody(body);
  const id = int(b, 'id');
  const username = optString(b, 'username', 64);
  if (!username) throw badRequest("Missing required body field 'username'.");
  const file = await db.transaction((tx) => reassign(tx, id, username));
  return { status: 'success', message: `File ${id} now belongs to '${username}'.`, body: toFileAnswer(file) };
});
