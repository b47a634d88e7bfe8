import { endpoint } from '#lib/http/endpoint.ts';

const answer = {
  type: 'object',
  required: ['status', 'message', 'body'],
  properties: {
    status: { enum: ['success', 'failure'] },
    message: { type: 'string' },
    body: {
      type: 'object',
      required: ['loggedIn', 'user'],
      properties: { loggedIn: { type: 'boolean' }, user: { type: ['string', 'null'] } },
    },
  },
} as const;

/** Always HTTP 200 (spec): the session cookie decides between the two bodies. */
export const handler = endpoint(
  { auth: 'public', ignoreBadToken: true, responses: { 200: { schema: answer } } },
  async ({ principal }) => {
    const user = principal.via === 'session' ? principal.user : null;
    if (user) {
      return {
        status: 'success',
        message: `User '${user.username}' is logged in.`,
        body: { loggedIn: true, user: user.username },
      };
    }
    return { status: 'failure', message: 'No user is logged in.', body: { loggedIn: false, user: null } };
  },
);
