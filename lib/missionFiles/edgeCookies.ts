import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { serialize } from 'cookie';
import { authMode, canViewMission, isAdmin } from '#lib/auth/permissions.ts';
import type { Principal } from '#lib/auth/principal.ts';
import { log } from '#lib/log.ts';
import { configuredPublicUrl } from '#lib/publicUrl.ts';
import { setting } from '#lib/settings.ts';
import {
  KEY_PAIR_ID_COOKIE,
  POLICY_COOKIE,
  SIGNATURE_COOKIE,
  signedCookieValues,
} from './cloudFrontSigning.ts';

/**
 * The CloudFront cookies of `/Missions/*` behind the front door (docs/mission-site.md, "Deployed"): the
 * distribution serves mission files from the bucket only to a browser holding a set signed for the file's
 * mission. A browser sends CloudFront one set per request, so each set has its own cookie path: one per
 * mission the user may view (`Path=/Missions/<mission>/`, policy `<PUBLIC_URL>/Missions/<mission>/*`), or,
 * for an administrator, one for every mission (`Path=/Missions/`). Every other path's set is cleared, so a
 * mission taken from a user, or a role changed, stops at the next login or page load. Issued only under
 * `AUTH=local` with the front door's key (`MISSION_COOKIE_KEY_ID`, `MISSION_COOKIE_KEY_SECRET_ARN`);
 * otherwise there is nothing to sign and no cookie is set.
 */

export interface EdgeKey {
  keyPairId: string;
  privateKey: string;
}

const NAMES = [POLICY_COOKIE, SIGNATURE_COOKIE, KEY_PAIR_ID_COOKIE] as const;
const ROOT = '/Missions/';

/** The cookie path of a mission's set: its name as the browser writes it in the URL. */
export function missionCookiePath(mission: string): string {
  return `${ROOT}${encodeURIComponent(mission)}/`;
}

const attributes = (path: string, expires: Date) =>
  ({ path, expires, httpOnly: true, secure: true, sameSite: 'lax', encode: (v: string) => v }) as const;

function setAt(path: string, origin: string, expiresAt: Date, key: EdgeKey): string[] {
  const values = signedCookieValues(`${origin}${path}*`, expiresAt, key);
  return NAMES.map((name) => serialize(name, values[name], attributes(path, expiresAt)));
}

function clearedAt(path: string): string[] {
  return NAMES.map((name) => serialize(name, '', attributes(path, new Date(0))));
}

export interface EdgeCookieInput {
  /** The user the cookies are for; null (or `clear`) clears every set. */
  principal: Principal;
  /** Every mission whose set may need clearing (the stored missions); the user's own are added. */
  missions: readonly string[];
  /** The public origin the policies name (`https://host`, no trailing slash). */
  origin: string;
  expiresAt: Date;
  key: EdgeKey;
  clear?: boolean;
}

/** The `Set-Cookie` values for `principal`: a set per path it may read, every other set cleared. */
export function edgeCookieHeaders(input: EdgeCookieInput): string[] {
  const { principal, origin, expiresAt, key } = input;
  const user = input.clear ? null : principal.user;
  const missions = [...new Set([...input.missions, ...(principal.user?.missions ?? [])])].sort();
  if (!user) return [ROOT, ...missions.map(missionCookiePath)].flatMap(clearedAt);
  if (isAdmin(principal))
    return [...setAt(ROOT, origin, expiresAt, key), ...missions.map(missionCookiePath).flatMap(clearedAt)];
  return [
    ...clearedAt(ROOT),
    ...missions.flatMap((m) =>
      canViewMission(principal, m)
        ? setAt(missionCookiePath(m), origin, expiresAt, key)
        : clearedAt(missionCookiePath(m)),
    ),
  ];
}

let cached: { secretArn: string; key: Promise<EdgeKey> } | undefined;

/**
 * The signing key when this function issues edge cookies: the key's id and, read once per instance, the
 * `privateKey` (PEM) of the JSON secret; undefined when either setting is unset.
 */
export function edgeSigningKey(): Promise<EdgeKey> | undefined {
  const keyPairId = setting('MISSION_COOKIE_KEY_ID');
  const secretArn = setting('MISSION_COOKIE_KEY_SECRET_ARN');
  if (!keyPairId || !secretArn) return undefined;
  if (cached?.secretArn !== secretArn) {
    const key = new SecretsManagerClient({})
      .send(new GetSecretValueCommand({ SecretId: secretArn }))
      .then((res) => {
        const privateKey = (JSON.parse(res.SecretString ?? '{}') as { privateKey?: string }).privateKey;
        if (!privateKey) throw new Error(`the secret ${secretArn} has no privateKey`);
        return { keyPairId, privateKey };
      });
    key.catch(() => {
      cached = undefined;
    });
    cached = { secretArn, key };
  }
  return cached.key;
}

/**
 * The edge cookies a login, a session check or a logout answers with (`clear`: every set cleared), or
 * none when the front door does not sign (`AUTH=none`, `npm start`, no key). A key that cannot be read is
 * logged and the answer goes without cookies: the user is logged in, and `/Missions` at the edge answers
 * 403 until the key is readable.
 */
export async function edgeCookies(
  principal: Principal,
  listMissions: () => Promise<string[]>,
  { expiresAt, clear = false }: { expiresAt?: Date; clear?: boolean } = {},
): Promise<string[]> {
  const pending = edgeSigningKey();
  const origin = configuredPublicUrl();
  if (!pending || !origin || authMode() !== 'local') return [];
  try {
    const [key, missions] = await Promise.all([pending, listMissions()]);
    const until = expiresAt ?? new Date(Date.now() + setting('SESSION_TTL_MS'));
    return edgeCookieHeaders({ principal, missions, origin, expiresAt: until, key, clear });
  } catch (e) {
    log('error', 'mission edge cookies not issued', { error: (e as Error).message });
    return [];
  }
}
