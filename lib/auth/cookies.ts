import { parse, serialize } from 'cookie';
import { requestScheme } from '#lib/publicUrl.ts';
import { header } from './principal.ts';
import { SESSION_COOKIE } from './sessions.ts';

/** Over HTTPS (lib/publicUrl.ts: a client's X-Forwarded-Proto counts only when trusted). */
function secure(headers: Record<string, string | undefined>): boolean {
  return requestScheme(headers) === 'https';
}

/** The HttpOnly session cookie (SameSite=Lax; Secure when the request came over HTTPS). */
export function sessionCookie(
  value: string,
  expiresAt: Date,
  headers: Record<string, string | undefined>,
): string {
  return serialize(SESSION_COOKIE, value, {
    httpOnly: true,
    sameSite: 'lax',
    secure: secure(headers),
    path: '/',
    expires: expiresAt,
  });
}

export function clearedSessionCookie(headers: Record<string, string | undefined>): string {
  return serialize(SESSION_COOKIE, '', {
    httpOnly: true,
    sameSite: 'lax',
    secure: secure(headers),
    path: '/',
    expires: new Date(0),
  });
}

/** The device cookie of login throttling (docs/auth.md, "Login throttling"). */
export const DEVICE_COOKIE = 'MMGISDevice';

/** The device cookie a request sent, if any. */
export function deviceCookieOf(headers: Record<string, string | undefined>): string | undefined {
  const raw = header(headers, 'cookie');
  if (!raw) return undefined;
  const value = parse(raw)[DEVICE_COOKIE];
  return value || undefined;
}

/** The HttpOnly device cookie, valid `days` (SameSite=Lax; Secure over HTTPS). */
export function deviceCookie(
  value: string,
  days: number,
  headers: Record<string, string | undefined>,
): string {
  return serialize(DEVICE_COOKIE, value, {
    httpOnly: true,
    sameSite: 'lax',
    secure: secure(headers),
    path: '/',
    expires: new Date(Date.now() + days * 24 * 60 * 60 * 1000),
  });
}
