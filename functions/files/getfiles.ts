import { caller } from '#lib/draw/access.ts';
import { listFiles } from '#lib/draw/files.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { filesAnswer } from '#lib/http/openapi/shapes/draw.ts';

export const handler = endpoint(
  { auth: 'user', body: 'json-or-form', responses: { 200: { schema: filesAnswer } } },
  async ({ principal, db }) => {
    const files = await listFiles(db.sql, caller(principal));
    return { status: 'success', message: 'Successfully got files.', body: files };
  },
);
