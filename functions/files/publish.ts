import { caller } from '#lib/draw/access.ts';
import { publish } from '#lib/draw/publish.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { publishAnswer } from '#lib/http/openapi/shapes/draw.ts';

const options = { auth: 'user', body: 'json-or-form', responses: ok(publishAnswer) } as const;

export const handler = endpoint(options, async ({ principal, db }) => {
  const result = await db.transaction((tx) => publish(tx, caller(principal)));
  return { status: 'success', message: 'Published.', body: result };
});
