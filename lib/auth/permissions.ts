import { forbidden, unauthorized } from '#lib/errors.ts';
import { setting } from '#lib/settings.ts';
import type { Principal } from './principal.ts';

/**
 * Who may call an endpoint (docs/auth.md):
 * - `public`: anyone;
 * - `viewer`: anyone under `AUTH=none`, a logged-in user under `AUTH=local`;
 * - `user`: a logged-in user;
 * - `admin`: an administrator (admin session or token).
 */
export type AuthRule = 'public' | 'viewer' | 'user' | 'admin';

export type AuthMode = 'none' | 'local';

export function authMode(): AuthMode {
  return setting('AUTH');
}

/** Throws 401/403 when `principal` may not call an endpoint guarded by `rule`. */
export function assertAllowed(rule: AuthRule, principal: Principal): void {
  if (rule === 'public') return;
  if (rule === 'viewer' && authMode() === 'none') return;
  if (!principal.user) throw unauthorized();
  if (rule === 'admin' && principal.user.role !== 'admin') throw forbidden();
}

/**
 * Token management needs an administrator **session** (docs/auth.md): a Bearer token gets 403, so a leaked
 * expiring token cannot mint itself a permanent one.
 */
export function assertSession(principal: Principal): void {
  if (principal.via !== 'session') {
    throw forbidden(
      'API tokens are managed with an administrator session (log in); a token cannot manage tokens.',
    );
  }
}

/**
 * User management (signup under `AUTH=local`, a change of role, password or missions, removal) needs an
 * administrator **session** (docs/auth.md): a Bearer token gets 403, so a leaked token cannot create an
 * account, make it an administrator, or take over the real administrator's password.
 */
export function assertSessionForUsers(principal: Principal): void {
  if (principal.via === 'token') {
    throw forbidden('Users are managed with an administrator session (log in); a token cannot manage users.');
  }
}

export function isAdmin(principal: Principal): boolean {
  return principal.user?.role === 'admin';
}

/** Whether the caller may view `mission` (admins, `AUTH=none`, or a user whose `missions` lists it). */
export function canViewMission(principal: Principal, mission: string): boolean {
  if (authMode() === 'none') return true;
  const u = principal.user;
  return !!u && (u.role === 'admin' || u.missions.includes(mission));
}
