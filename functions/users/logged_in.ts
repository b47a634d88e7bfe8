import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { loggedInAnswer } from '#lib/http/openapi/shapes/users.ts';

/** Always HTTP 200 (spec): the session cookie decides between the two bodies. */
export const handler = endpoint(
  { auth: 'public', ignoreBadToken: true, responses: ok(loggedInAnswer) },
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
