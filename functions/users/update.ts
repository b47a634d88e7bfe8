import { assertSessionForUsers } from '#lib/auth/permissions.ts';
import { email, missionName, newPassword as password, username } from '#lib/auth/schemas.ts';
import { updateUser } from '#lib/auth/users.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { updatedUser } from '#lib/http/openapi/shapes/users.ts';

const body = {
  type: 'object',
  required: ['username'],
  additionalProperties: false,
  properties: {
    username,
    role: { type: 'string', enum: ['admin', 'user'] },
    missions: { type: 'array', maxItems: 1000, items: missionName },
    password,
    email: { anyOf: [email, { type: 'null' }] },
  },
} as const;

/** A change of role, password or missions needs an administrator session (docs/auth.md); email alone does not. */
export const handler = endpoint(
  { auth: 'admin', schema: { body }, responses: ok(updatedUser) },
  async ({ body, db, principal }) => {
    const { username: name, ...changes } = body;
    if (changes.role !== undefined || changes.password !== undefined || changes.missions !== undefined) {
      assertSessionForUsers(principal);
    }
    // A password change ends the user's other sessions; the session making the change is kept.
    const keep = principal.via === 'session' ? principal.sessionCookie : null;
    const user = await updateUser(db, name, changes, keep);
    return { status: 'success', message: `Updated user '${user.username}'.`, body: { user } };
  },
);
