import { parse as parseCookie } from 'cookie';
import type { Queryable } from '#lib/db/index.ts';
import { HttpError, unauthorized } from '#lib/errors.ts';
import { SESSION_COOKIE, userForSession } from './sessions.ts';
import { userForToken } from './tokens.ts';
import type { User } from './users.ts';

/** Who is calling: a user (by session cookie or Bearer token) or nobody. */
export interface Principal {
  user: User | null;
  via: 'session' | 'token' | null;
  /** The raw session cookie, when one was sent (logout needs it). */
  sessionCookie: string | null;
}

export const anonymous: Principal = { user: null, via: null, sessionCookie: null };

type HeaderBag = Record<string, string | undefined> | null | undefined;

/**
 * A header of `headers` by name, whatever its case: auth's own, for the credentials and cookies it reads
 * (lib/auth may not import lib/http). Handlers and the framework use `header` of lib/http/headers.ts.
 */
export function header(headers: HeaderBag, name: string): string | undefined {
  if (!headers) return undefined;
  const lower = name.toLowerCase();
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === lower) return v;
  return undefined;
}

function withoutAuthorization(headers: HeaderBag): HeaderBag {
  return Object.fromEntries(
    Object.entries(headers ?? {}).filter(([k]) => k.toLowerCase() !== 'authorization'),
  );
}

export function sessionCookieOf(headers: HeaderBag): string | null {
  const raw = header(headers, 'cookie');
  if (!raw) return null;
  try {
    const v = parseCookie(raw)[SESSION_COOKIE];
    return v && v.length <= 200 ? v : null;
  } catch {
    return null;
  }
}

/**
 * Reads `Authorization: Bearer` first (an invalid or expired token is a 401 even on public endpoints,
 * unless `ignoreBadToken`: then it counts as no token, for `logged_in` which always answers 200), then the
 * session cookie (an unknown or expired cookie is simply no session).
 */
export async function resolvePrincipal(
  sql: Queryable,
  headers: HeaderBag,
  options: { ignoreBadToken?: boolean } = {},
): Promise<Principal> {
  const sessionCookie = sessionCookieOf(headers);
  const authz = header(headers, 'authorization');
  if (authz !== undefined && authz !== '') {
    const m = /^Bearer\s+(\S{1,500})\s*$/i.exec(authz);
    const check = m ? await userForToken(sql, m[1]) : undefined;
    if (options.ignoreBadToken && !check?.ok) return resolvePrincipal(sql, withoutAuthorization(headers));
    if (!m || !check) throw new HttpError(401, "Invalid Authorization header: expected 'Bearer <token>'.");
    if (!check.ok) {
      throw unauthorized(
        check.reason === 'expired' ? 'The API token has expired.' : 'The API token is invalid.',
      );
    }
    return { user: check.user, via: 'token', sessionCookie };
  }
  if (sessionCookie) {
    const user = await userForSession(sql, sessionCookie);
    if (user) return { user, via: 'session', sessionCookie };
  }
  return { ...anonymous, sessionCookie };
}
