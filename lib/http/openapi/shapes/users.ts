import { failure, successMessage, successWith } from '../describe.ts';
import { arrayOf, dateTime, integer, nullable, object, string } from '../json.ts';

/** Response shapes of /api/users and /api/longtermtoken (docs/contract.md#2-authentication-and-permissions, docs/auth.md). */

const role = { enum: ['admin', 'user'] } as const;

export const user = object({
  id: integer,
  username: string,
  email: nullable(string),
  role,
  missions: arrayOf(string),
  createdAt: dateTime,
});

export const loginAnswer = successWith({ username: string, role }, ['username', 'role']);
/** signup and first_signup (201). */
export const createdUser = successMessage(object({ username: string, role }));
export const usersAnswer = successWith({ body: object({ users: arrayOf(user) }) }, ['body']);
export const updatedUser = successMessage(object({ user }));

/** `GET /logged_in`: always 200; `status` and `loggedIn` say whether a session is there. */
export const loggedInAnswer = object({
  status: { enum: ['success', 'failure'] },
  message: string,
  body: object({ loggedIn: { type: 'boolean' }, user: nullable(string) }),
});

const tokenTimes = { createdAt: dateTime, expiresAt: nullable(dateTime) };
/** `POST /longtermtoken/generate` (201): the only answer that shows the full token. */
export const newToken = successWith(
  { body: object({ id: string, name: nullable(string), token: string, ...tokenTimes }) },
  ['body'],
);
/** `GET /longtermtoken/get`: the established server's shape, `{status, tokens}` (docs/auth.md). */
export const tokensAnswer = successWith(
  {
    tokens: arrayOf(
      object({
        id: string,
        name: nullable(string),
        prefix: string,
        token: string,
        period: string,
        ...tokenTimes,
        lastUsedAt: nullable(dateTime),
        created_by_user_id: integer,
        created_by_username: nullable(string),
      }),
    ),
  },
  ['tokens'],
);

/** `POST /users/has`: whether any account exists (the established server's answer). */
export const hasUsersAnswer = successWith({ has: { type: 'boolean' } }, ['has']);

/** 429 of `POST /login` after too many failures (with `Retry-After`). */
export const throttled = {
  description: 'Too many failed logins for this username from this address.',
  schema: failure,
};
