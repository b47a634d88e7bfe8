import { caller, fileFor } from '#lib/draw/access.ts';
import { historyOf } from '#lib/draw/history.ts';
import { id } from '#lib/draw/schemas.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { historyAnswer } from '#lib/http/openapi/shapes/draw.ts';

const body = { type: 'object', required: ['id'], properties: { id } } as const;

const options = { auth: 'user', schema: { body }, responses: ok(historyAnswer) } as const;

export const handler = endpoint(options, async ({ body, principal, db }) => {
  await fileFor(db.sql, body.id, caller(principal), 'read');
  return { status: 'success', message: 'Successfully got history.', body: await historyOf(db.sql, body.id) };
});
