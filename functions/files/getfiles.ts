import { caller } from '#lib/draw/access.ts';
import { listFiles } from '#lib/draw/files.ts';
import { endpoint } from '#lib/http/endpoint.ts';

export const handler = endpoint({ auth: 'user', body: 'json-or-form' }, async ({ principal, db }) => {
  const files = await listFiles(db.sql, caller(principal));
  return { status: 'success', message: 'Successfully got files.', body: files };
});
