import { caller } from '#lib/draw/access.ts';
import { setHidden } from '#lib/draw/files.ts';
import { asBody, int } from '#lib/draw/input.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { fileAnswer } from '#lib/http/openapi/shapes/draw.ts';

export const handler = endpoint(
  { auth: 'user', body: 'json-or-form', responses: { 200: { schema: fileAnswer } } },
  async ({ body, principal, db }) => {
    const id = int(asBody(body), 'id');
    const file = await db.transaction((tx) => setHidden(tx, caller(principal), id, false));
    return { status: 'success', message: 'File restored.', body: file };
  },
);
