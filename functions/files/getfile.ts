import { caller } from '#lib/draw/access.ts';
import { toFileAnswer } from '#lib/draw/fileAnswer.ts';
import { FILE_INTENTS } from '#lib/draw/files.ts';
import { asBody, bool, idList, oneOf, optInt } from '#lib/draw/input.ts';
import { getFiles, publishedLayer } from '#lib/draw/read.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { getFileAnswer } from '#lib/http/openapi/shapes/draw.ts';

const options = { auth: 'user', body: 'json-or-form', responses: ok(getFileAnswer) } as const;

export const handler = endpoint(options, async ({ body, principal, db }) => {
  const b = asBody(body);
  const c = caller(principal);
  if (bool(b, 'quick_published', false)) {
    const intent = oneOf(b, 'intent', FILE_INTENTS);
    return { status: 'success', message: 'Published layer.', body: await publishedLayer(db.sql, intent) };
  }
  const input = { ids: idList(b, 'id'), time: optInt(b, 'time'), published: bool(b, 'published', false) };
  const result = await getFiles(db.sql, c, input);
  return {
    status: 'success',
    message: 'Successfully got file.',
    body: { ...result, file: result.file.map(toFileAnswer) },
  };
});
