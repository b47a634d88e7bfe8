import { createVerify, generateKeyPairSync } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Principal } from '#lib/auth/principal.ts';
import type { User } from '#lib/auth/users.ts';
import {
  cloudFrontBase64,
  customPolicy,
  signedCookieValues,
  signPolicy,
} from '#lib/missionFiles/cloudFrontSigning.ts';
import { edgeCookieHeaders, edgeCookies, missionCookiePath } from '#lib/missionFiles/edgeCookies.ts';

/** CloudFront's base64 back to bytes (`-` → `+`, `_` → `=`, `~` → `/`). */
const fromCloudFront = (text: string) =>
  Buffer.from(text.replace(/-/g, '+').replace(/_/g, '=').replace(/~/g, '/'), 'base64');

const { privateKey, publicKey } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
});
const key = { keyPairId: 'K2JCJMDEHXQW5F', privateKey };
const ORIGIN = 'https://d111111abcdef8.cloudfront.net';
const UNTIL = new Date('2026-12-01T10:00:00.900Z');

const verified = (policy: string, signature: string) =>
  createVerify('RSA-SHA1').update(policy, 'utf8').verify(publicKey, fromCloudFront(signature));

const userPrincipal = (role: 'admin' | 'user', missions: string[]): Principal => ({
  user: { id: 1, username: 'u', role, missions } as unknown as User,
  via: 'session',
  sessionCookie: null,
});

/** `Set-Cookie` values as { name, value, path, expires }. */
const cookiesOf = (headers: string[]) =>
  headers.map((h) => {
    const [pair, ...attrs] = h.split('; ');
    const [name, value] = [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)];
    const path = attrs.find((a) => a.startsWith('Path='))?.slice(5);
    const expires = new Date(attrs.find((a) => a.startsWith('Expires='))!.slice(8));
    return { name, value, path, expires, attrs };
  });

describe('CloudFront signing (custom policy, RSA-SHA1)', () => {
  it('writes the policy as CloudFront reads it: one statement, the epoch second, no white space', () => {
    expect(customPolicy(`${ORIGIN}/Missions/MSL/*`, UNTIL)).toBe(
      `{"Statement":[{"Resource":"${ORIGIN}/Missions/MSL/*","Condition":{"DateLessThan":{"AWS:EpochTime":1796119200}}}]}`,
    );
  });

  it("uses CloudFront's base64 alphabet", () => {
    expect(cloudFrontBase64(Buffer.from([0xfb, 0xff, 0xbf]))).toBe('-~-~');
    expect(cloudFrontBase64(Buffer.from([0xff]))).toBe('~w__');
  });

  it('signs the policy so that the public key verifies it', () => {
    const policy = customPolicy(`${ORIGIN}/Missions/MSL/*`, UNTIL);
    expect(verified(policy, signPolicy(policy, privateKey))).toBe(true);
    expect(verified(policy.replace('MSL', 'M2020'), signPolicy(policy, privateKey))).toBe(false);
  });

  it('gives the three cookie values: the encoded policy, its signature and the key id', () => {
    const v = signedCookieValues(`${ORIGIN}/Missions/MSL/*`, UNTIL, key);
    const policy = fromCloudFront(v['CloudFront-Policy']).toString('utf8');
    expect(JSON.parse(policy).Statement[0].Resource).toBe(`${ORIGIN}/Missions/MSL/*`);
    expect(verified(policy, v['CloudFront-Signature'])).toBe(true);
    expect(v['CloudFront-Key-Pair-Id']).toBe('K2JCJMDEHXQW5F');
    expect(`${v['CloudFront-Policy']}${v['CloudFront-Signature']}`).toMatch(/^[A-Za-z0-9~_-]+$/);
  });
});

describe('the edge cookies of a user (AUTH=local)', () => {
  const saved = { ...process.env };
  beforeEach(() => {
    process.env.AUTH = 'local';
  });
  afterEach(() => {
    process.env = { ...saved };
  });
  const input = (principal: Principal, extra: object = {}) => ({
    principal,
    missions: ['MSL', 'M2020', 'Test Mission'],
    origin: ORIGIN,
    expiresAt: UNTIL,
    key,
    ...extra,
  });

  it('sets one set per mission the user may view, at its own path, and clears the others', () => {
    const cookies = cookiesOf(edgeCookieHeaders(input(userPrincipal('user', ['MSL', 'Test Mission']))));
    const live = cookies.filter((c) => c.value !== '');
    expect(live.map((c) => `${c.name} ${c.path}`).sort()).toEqual([
      'CloudFront-Key-Pair-Id /Missions/MSL/',
      'CloudFront-Key-Pair-Id /Missions/Test%20Mission/',
      'CloudFront-Policy /Missions/MSL/',
      'CloudFront-Policy /Missions/Test%20Mission/',
      'CloudFront-Signature /Missions/MSL/',
      'CloudFront-Signature /Missions/Test%20Mission/',
    ]);
    for (const c of live) {
      expect(c.attrs).toEqual(expect.arrayContaining(['HttpOnly', 'Secure', 'SameSite=Lax']));
      expect(c.expires.getTime()).toBe(Math.floor(UNTIL.getTime() / 1000) * 1000);
    }
    // Each set's policy names its own mission's files, and its signature verifies.
    for (const path of ['/Missions/MSL/', '/Missions/Test%20Mission/']) {
      const at = (name: string) => live.find((c) => c.path === path && c.name === name)!.value;
      const policy = fromCloudFront(at('CloudFront-Policy')).toString('utf8');
      expect(JSON.parse(policy).Statement[0].Resource).toBe(`${ORIGIN}${path}*`);
      expect(verified(policy, at('CloudFront-Signature'))).toBe(true);
    }
    const cleared = cookies.filter((c) => c.value === '');
    expect([...new Set(cleared.map((c) => c.path))].sort()).toEqual(['/Missions/', '/Missions/M2020/']);
    for (const c of cleared) expect(c.expires.getTime()).toBe(0);
  });

  it('gives an administrator one set for every mission and clears the per-mission ones', () => {
    const cookies = cookiesOf(edgeCookieHeaders(input(userPrincipal('admin', []))));
    const live = cookies.filter((c) => c.value !== '');
    expect(live.map((c) => c.path)).toEqual(['/Missions/', '/Missions/', '/Missions/']);
    const policy = fromCloudFront(live.find((c) => c.name === 'CloudFront-Policy')!.value).toString();
    expect(JSON.parse(policy).Statement[0].Resource).toBe(`${ORIGIN}/Missions/*`);
    expect(cookies.filter((c) => c.value === '')).toHaveLength(9);
  });

  it('clears every set on logout, including a mission only the user lists', () => {
    const principal = userPrincipal('user', ['Unstored']);
    const cookies = cookiesOf(edgeCookieHeaders(input(principal, { clear: true })));
    expect(cookies.every((c) => c.value === '')).toBe(true);
    expect(new Set(cookies.map((c) => c.path))).toEqual(
      new Set(['/Missions/', ...['M2020', 'MSL', 'Test Mission', 'Unstored'].map(missionCookiePath)]),
    );
  });

  it('issues nothing, and lists no missions, without the front door key or under AUTH=none', async () => {
    let listed = 0;
    const list = async () => {
      listed++;
      return ['MSL'];
    };
    process.env.PUBLIC_URL = ORIGIN;
    delete process.env.MISSION_COOKIE_KEY_ID;
    delete process.env.MISSION_COOKIE_KEY_SECRET_ARN;
    expect(await edgeCookies(userPrincipal('user', ['MSL']), list)).toEqual([]);
    process.env.AUTH = 'none';
    process.env.MISSION_COOKIE_KEY_ID = 'K1';
    process.env.MISSION_COOKIE_KEY_SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:1:secret:k';
    expect(await edgeCookies(userPrincipal('user', ['MSL']), list)).toEqual([]);
    expect(listed).toBe(0);
  });
});
