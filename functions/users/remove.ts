import { assertSessionForUsers } from '#lib/auth/permissions.ts';
import { username } from '#lib/auth/schemas.ts';
import { removeUser } from '#lib/auth/users.ts';
import { badRequest } from '#lib/errors.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok, successMessage } from '#lib/http/openapi/describe.ts';

const body = { type: 'object', required: ['username'], properties: { username } } as const;

/** An administrator session removes a user (a Bearer token gets 403: docs/auth.md). */
export const handler = endpoint(
  { auth: 'admin', schema: { body }, responses: ok(successMessage()) },
  async ({ body, db, principal }) => {
    assertSessionForUsers(principal);
    if (principal.user?.username === body.username)
      throw badRequest('An administrator cannot remove itself.');
    await removeUser(db.sql, body.username);
    return { status: 'success', message: `Removed user '${body.username}'.` };
  },
);
