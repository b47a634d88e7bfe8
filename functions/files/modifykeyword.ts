import { caller } from '#lib/draw/access.ts';
import { modifyKeyword } from '#lib/draw/files.ts';
import { keyword } from '#lib/draw/schemas.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { keywordAnswer } from '#lib/http/openapi/shapes/draw.ts';

const body = {
  type: 'object',
  required: ['keyword', 'type'],
  properties: {
    keyword,
    type: { enum: ['tags', 'folders', 'efolders'] },
    /** The new word; omitted, `''`, `'null'` or null: the keyword is removed. */
    newKeyword: { ...keyword, type: ['string', 'null'], minLength: 0 },
  },
} as const;

const options = { auth: 'user', schema: { body }, responses: ok(keywordAnswer) } as const;

export const handler = endpoint(options, async ({ body, principal, db }) => {
  const next = body.newKeyword;
  const newKeyword = next === undefined || next === null || next === '' || next === 'null' ? null : next;
  const count = await db.transaction((tx) =>
    modifyKeyword(tx, caller(principal), body.keyword, body.type, newKeyword),
  );
  return { status: 'success', message: `Changed ${count} file(s).`, body: { count } };
});
