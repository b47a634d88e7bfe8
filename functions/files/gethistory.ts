import { caller, fileFor } from '#lib/draw/access.ts';
import { historyOf } from '#lib/draw/history.ts';
import { asBody, int } from '#lib/draw/input.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { historyAnswer } from '#lib/http/openapi/shapes/draw.ts';

const options = { auth: 'user', body: 'json-or-form', responses: ok(historyAnswer) } as const;

export const handler = endpoint(options, async ({ body, principal, db }) => {
  const id = int(asBody(body), 'id');
  await fileFor(db.sql, id, caller(principal), 'read');
  return { status: 'success', message: 'Successfully got history.', body: await historyOf(db.sql, id) };
});
