import { clearedSessionCookie } from '#lib/auth/cookies.ts';
import { endSession } from '#lib/auth/sessions.ts';
import { listMissions } from '#lib/configure/missions.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok, successMessage } from '#lib/http/openapi/describe.ts';
import { respond } from '#lib/http/response.ts';
import { edgeCookies } from '#lib/missionFiles/edgeCookies.ts';

export const handler = endpoint(
  { auth: 'public', responses: ok(successMessage()) },
  async ({ db, principal, headers }) => {
    if (principal.sessionCookie) await endSession(db.sql, principal.sessionCookie);
    return respond(
      200,
      { status: 'success', message: 'Logged out.' },
      {
        cookies: [
          clearedSessionCookie(headers),
          ...(await edgeCookies(principal, () => listMissions(db.sql), { clear: true })),
        ],
      },
    );
  },
);
