import { listUsers } from '#lib/auth/users.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { usersAnswer } from '#lib/http/openapi/shapes/users.ts';

export const handler = endpoint({ auth: 'admin', responses: ok(usersAnswer) }, async ({ db }) => {
  const users = await listUsers(db.sql);
  return { status: 'success', body: { users } };
});
