import { caller } from '#lib/draw/access.ts';
import { publish } from '#lib/draw/publish.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { publishAnswer } from '#lib/http/openapi/shapes/draw.ts';

export const handler = endpoint(
  { auth: 'user', body: 'json-or-form', responses: { 200: { schema: publishAnswer } } },
  async ({ principal, db }) => {
    const result = await db.transaction((tx) => publish(tx, caller(principal)));
    return { status: 'success', message: 'Published.', body: result };
  },
);
