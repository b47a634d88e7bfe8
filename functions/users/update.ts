import { email, missionName, password, username } from '#lib/auth/schemas.ts';
import { updateUser } from '#lib/auth/users.ts';
import { endpoint } from '#lib/http/endpoint.ts';

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

export const handler = endpoint({ auth: 'admin', schema: { body } }, async ({ body, db }) => {
  const { username: name, ...changes } = body;
  const user = await updateUser(db.sql, name, changes);
  return { status: 'success', message: `Updated user '${user.username}'.`, body: { user } };
});
