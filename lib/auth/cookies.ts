import { serialize } from 'cookie';
import { header } from './principal.ts';
import { SESSION_COOKIE } from './sessions.ts';

function secure(headers: Record<string, string | undefined>): boolean {
  return header(headers, 'x-forwarded-proto') === 'https';
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
