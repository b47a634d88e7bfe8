import { caller } from '#lib/draw/access.ts';
import { modifyKeyword } from '#lib/draw/files.ts';
import { asBody, oneOf, optString } from '#lib/draw/input.ts';
import { badRequest } from '#lib/errors.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { keywordAnswer } from '#lib/http/openapi/shapes/draw.ts';

const word = /^[^\s~]{1,200}$/;

const options = { auth: 'user', body: 'json-or-form', responses: ok(keywordAnswer) } as const;

export const handler = endpoint(options, async ({ body, principal, db }) => {
  const b = asBody(body);
  const keyword = optString(b, 'keyword');
  if (!keyword || !word.test(keyword))
    throw badRequest("Body field 'keyword' must be a word (no spaces or '~').");
  const type = oneOf(b, 'type', ['tags', 'folders', 'efolders'] as const);
  if (!type) throw badRequest("Missing required body field 'type'.");
  const next = optString(b, 'newKeyword');
  const newKeyword = next === undefined || next === '' || next === 'null' ? null : next;
  if (newKeyword !== null && !word.test(newKeyword)) {
    throw badRequest("Body field 'newKeyword' must be a word (no spaces or '~') or null.");
  }
  const count = await db.transaction((tx) => modifyKeyword(tx, caller(principal), keyword, type, newKeyword));
  return { status: 'success', message: `Changed ${count} file(s).`, body: { count } };
});
