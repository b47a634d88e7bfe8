import { deviceCookie, deviceCookieOf, sessionCookie } from '#lib/auth/cookies.ts';
import { DUMMY_HASH, verifyPassword } from '#lib/auth/passwords.ts';
import { credentials } from '#lib/auth/schemas.ts';
import { newSecret } from '#lib/auth/secrets.ts';
import { createSession } from '#lib/auth/sessions.ts';
import {
  DEVICE_DAYS,
  forgetOldLoginFailures,
  loginClient,
  recordLoginSuccess,
  reserveLoginAttempt,
} from '#lib/auth/throttle.ts';
import { findUserForLogin } from '#lib/auth/users.ts';
import { listMissions } from '#lib/configure/missions.ts';
import { HttpError } from '#lib/errors.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { loginAnswer, throttled } from '#lib/http/openapi/shapes/users.ts';
import { respond } from '#lib/http/response.ts';
import { edgeCookies } from '#lib/missionFiles/edgeCookies.ts';

/**
 * Credentials, or `useToken: true` alone: the MMGIS web client's check on page load of the session it
 * already has (docs/auth.md). A form's `useToken=true` is coerced like JSON's `true`.
 */
const body = {
  type: 'object',
  properties: { ...credentials.properties, useToken: { type: 'boolean' } },
  if: { required: ['useToken'], properties: { useToken: { type: 'boolean', const: true } } },
  else: { required: ['username', 'password'] },
} as const;

export const handler = endpoint(
  {
    auth: 'public',
    schema: { body },
    responses: { 200: { schema: loginAnswer }, 429: throttled },
  },
  async ({ body: input, db, headers, event, principal }) => {
    if (input.useToken === true && input.username === undefined) {
      if (principal.via !== 'session' || !principal.user) throw new HttpError(401, 'No user is logged in.');
      const { username, role } = principal.user;
      // The page load re-issues the /Missions cookies of the front door with the user's current missions.
      const cookies = await edgeCookies(principal, () => listMissions(db.sql));
      return respond(200, { status: 'success', username, role, groups: [] }, { cookies });
    }
    const body = input as { username: string; password: string };
    const source = event.requestContext?.identity?.sourceIp ?? 'unknown';
    // A trusted device, a known address or neither (docs/auth.md, login throttling); the attempt is
    // counted before the password is checked.
    const client = await loginClient(db.sql, body.username, source, deviceCookieOf(headers));
    const attempt = await reserveLoginAttempt(db, body.username, client);
    if (!attempt.ok) {
      const where = { source: ' from this address', device: ' from this device', username: '' }[
        attempt.scope
      ];
      return respond(
        429,
        {
          status: 'failure',
          message: `Too many failed logins for '${body.username}'${where}; try again in ${attempt.retryAfter} s.`,
        },
        { headers: { 'Retry-After': String(attempt.retryAfter) } },
      );
    }
    const found = await findUserForLogin(db.sql, body.username);
    const ok = await verifyPassword(body.password, found?.passwordHash ?? DUMMY_HASH);
    if (!found || !ok) {
      await forgetOldLoginFailures(db.sql);
      throw new HttpError(401, 'Invalid username or password.');
    }
    // The device cookie: renewed when it was trusted, else a new one for this username.
    const device = client.kind === 'device' ? deviceCookieOf(headers)! : newSecret();
    await recordLoginSuccess(
      db.sql,
      body.username,
      source,
      client,
      client.kind === 'device' ? undefined : device,
      { id: found.user.id, passwordHash: found.passwordHash },
    );
    const session = await createSession(db.sql, found.user.id);
    return respond(
      200,
      { status: 'success', username: found.user.username, role: found.user.role },
      {
        cookies: [
          sessionCookie(session.value, session.expiresAt, headers),
          deviceCookie(device, DEVICE_DAYS, headers),
          ...(await edgeCookies(
            { user: found.user, via: 'session', sessionCookie: null },
            () => listMissions(db.sql),
            { expiresAt: session.expiresAt },
          )),
        ],
      },
    );
  },
);
