import { listMissions } from '#lib/configure/missions.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { loggedInAnswer } from '#lib/http/openapi/shapes/users.ts';
import { respond } from '#lib/http/response.ts';
import { edgeCookies } from '#lib/missionFiles/edgeCookies.ts';

/** Always HTTP 200 (spec): the session cookie decides between the two bodies. */
export const handler = endpoint(
  { auth: 'public', ignoreBadToken: true, responses: ok(loggedInAnswer) },
  async ({ principal, db }) => {
    const user = principal.via === 'session' ? principal.user : null;
    if (user) {
      // The session check re-issues the front door's /Missions cookies with the user's current missions.
      const cookies = await edgeCookies(principal, () => listMissions(db.sql));
      return respond(
        200,
        {
          status: 'success',
          message: `User '${user.username}' is logged in.`,
          body: { loggedIn: true, user: user.username },
        },
        { cookies },
      );
    }
    return { status: 'failure', message: 'No user is logged in.', body: { loggedIn: false, user: null } };
  },
);
