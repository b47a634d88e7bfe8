import { assertSessionForUsers, authMode, isAdmin } from '#lib/auth/permissions.ts';
import { email, newPassword as password, username } from '#lib/auth/schemas.ts';
import { adminExists, createUser } from '#lib/auth/users.ts';
import { forbidden, unauthorized } from '#lib/errors.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { createdUser } from '#lib/http/openapi/shapes/users.ts';
import { respond } from '#lib/http/response.ts';

const body = {
  type: 'object',
  required: ['username', 'password'],
  properties: { username, password, email },
} as const;

/**
 * Under AUTH=local only an administrator session creates accounts (a Bearer token gets 403). Under
 * AUTH=none anyone may sign up as a user, but only once an administrator exists (docs/auth.md): before
 * that, an early account could never be told apart from the deployment's owner.
 */
export const handler = endpoint(
  { auth: 'public', schema: { body }, responses: { 201: { schema: createdUser } } },
  async ({ body, db, principal }) => {
    if (authMode() === 'local') {
      assertSessionForUsers(principal);
      if (!isAdmin(principal)) {
        throw principal.user ? forbidden('Only an administrator may create accounts.') : unauthorized();
      }
    } else if (!(await adminExists(db.sql))) {
      throw forbidden(
        'No administrator exists yet: create the first one with users/first_signup before signing up.',
      );
    }
    const user = await createUser(db.sql, { ...body, role: 'user' });
    return respond(201, {
      status: 'success',
      message: `Created user '${user.username}'.`,
      body: { username: user.username, role: user.role },
    });
  },
);
