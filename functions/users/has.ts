import { anyUser } from '#lib/auth/userCount.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { hasUsersAnswer } from '#lib/http/openapi/shapes/users.ts';

/**
 * POST /api/users/has → `{status:'success', has}`: whether any account exists, the established server's
 * answer (its admin login page shows the first-administrator form while `has` is false). Anyone may ask.
 */
export const handler = endpoint(
  { auth: 'public', body: 'raw', responses: ok(hasUsersAnswer) },
  async ({ db }) => ({ status: 'success', has: await anyUser(db.sql) }),
);
