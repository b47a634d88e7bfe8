import { caller } from '#lib/draw/access.ts';
import { toFileAnswer } from '#lib/draw/fileAnswer.ts';
import { listFiles } from '#lib/draw/files.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { filesAnswer } from '#lib/http/openapi/shapes/draw.ts';

const options = { auth: 'user', body: 'json-or-form', responses: ok(filesAnswer) } as const;

export const handler = endpoint(options, async ({ principal, db }) => {
  const files = await listFiles(db.sql, caller(principal));
  return { status: 'success', message: 'Successfully got files.', body: files.map(toFileAnswer) };
});
