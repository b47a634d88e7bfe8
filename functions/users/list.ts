import { listUsers } from '#lib/auth/users.ts';
import { endpoint } from '#lib/http/endpoint.ts';

export const handler = endpoint({ auth: 'admin' }, async ({ db }) => {
  const users = await listUsers(db.sql);
  return { status: 'success', body: { users } };
});
