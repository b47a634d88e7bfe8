import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { sha256 } from '#lib/auth/secrets.ts';
import { getDb } from '#lib/db/index.ts';
import { adminCookie, apiUrl, call, userWithSession } from '../helpers.ts';

/**
 * The attack: 50 wrong passwords from 5 addresses made the right password a 429 for 15 minutes from every
 * address, the owner's included: anyone could lock the administrator out. Now (docs/auth.md, "Login
 * throttling", after OWASP's device cookies) a successful login issues a device cookie for the user; a
 * login that sends it is held only to its own per-device limit, and an address that has logged the user
 * in only to its own per-address limit. Guessing from new clients stays limited per address and per
 * account. Every guess counts toward the account's 50, device cookies' included, and new clients may use
 * only 30 of them, so they never take the places of the owner's devices and addresses. Devices belong to
 * the user and its current password: a password change or a removal revokes them, and each user keeps at
 * most 10. Statuses: 401 = the password was checked, 429 = refused unchecked.
 */

const db = getDb();

interface Answer {
  status: number;
  text: string;
  cookies: string[];
}

/** POSTs a login over real HTTP from `localAddress` (a loopback address: the service's source IP). */
function loginFrom(localAddress: string, username: string, password: string, cookie?: string) {
  const url = new URL('/api/users/login', apiUrl());
  const body = JSON.stringify({ username, password });
  return new Promise<Answer>((resolve, reject) => {
    const headers: Record<string, string | number> = {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    };
    if (cookie) headers.cookie = cookie;
    const req = request(url, { method: 'POST', localAddress, agent: false, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => {
        text += c;
      });
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          text,
          cookies: (res.headers['set-cookie'] ?? []) as string[],
        }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

const tally = (statuses: number[]) =>
  statuses.reduce<Record<number, number>>((t, s) => {
    t[s] = (t[s] ?? 0) + 1;
    return t;
  }, {});

/** The `MMGISDevice=...` pair of a login answer. */
function deviceOf(a: Answer): string {
  const c = a.cookies.find((x) => x.startsWith('MMGISDevice='));
  expect(c, a.cookies.join(' | ')).toBeDefined();
  expect(c).toMatch(/HttpOnly/i);
  expect(c).toMatch(/SameSite=Lax/i);
  return c!.split(';')[0];
}

/** Wrong passwords, 10 from each of the addresses (10 at a time). */
async function attack(username: string, addresses: string[]): Promise<number[]> {
  const statuses: number[] = [];
  for (const a of addresses) {
    const burst = await Promise.all(
      Array.from({ length: 10 }, (_, i) => loginFrom(a, username, `wrong-${i}`)),
    );
    statuses.push(...burst.map((b) => b.status));
  }
  return statuses;
}

describe('device cookies', () => {
  it("an attacker's 50 wrong guesses from 5 addresses do not lock out the owner's device or address", async () => {
    const u = await userWithSession('admin');
    // The owner logs in from its device and address: a device cookie comes with the session cookie.
    const first = await loginFrom('127.0.0.31', u.username, u.password);
    expect(first.status, first.text).toBe(200);
    expect(first.cookies[0]).toMatch(/^MMGISSession=/);
    const device = deviceOf(first);

    const guesses = await attack(u.username, [
      '127.0.0.41',
      '127.0.0.42',
      '127.0.0.43',
      '127.0.0.44',
      '127.0.0.45',
    ]);
    // New clients have 30 of the account's 50 attempts: the rest are refused unchecked.
    expect(tally(guesses)).toEqual({ 401: 30, 429: 20 });

    // Guessing from new clients stays limited: a sixth address is refused, right password or not.
    expect((await loginFrom('127.0.0.46', u.username, 'wrong')).status).toBe(429);
    const fresh = await loginFrom('127.0.0.46', u.username, u.password);
    expect(fresh.status, fresh.text).toBe(429);
    // So is a device cookie issued to another user.
    const other = await userWithSession('user');
    const otherDevice = deviceOf(await loginFrom('127.0.0.47', other.username, other.password));
    expect((await loginFrom('127.0.0.48', u.username, u.password, otherDevice)).status).toBe(429);
    // A made-up device cookie is no device.
    expect((await loginFrom('127.0.0.48', u.username, u.password, 'MMGISDevice=made-up')).status).toBe(429);

    // The owner's device, from an address never seen: the right password logs in, the cookie renewed.
    const owner = await loginFrom('127.0.0.49', u.username, u.password, device);
    expect(owner.status, owner.text).toBe(200);
    expect(deviceOf(owner)).toBe(device);
    // The owner's known address, without the cookie (a script, another browser): logs in too.
    const known = await loginFrom('127.0.0.31', u.username, u.password);
    expect(known.status, known.text).toBe(200);
  }, 180_000);

  it('a trusted device has its own limit: 10 wrong passwords, then 429 from this device', async () => {
    const u = await userWithSession('user');
    const device = deviceOf(await loginFrom('127.0.0.51', u.username, u.password));
    const wrong = await Promise.all(
      Array.from({ length: 12 }, (_, i) => loginFrom('127.0.0.52', u.username, `wrong-${i}`, device)),
    );
    expect(tally(wrong.map((w) => w.status))).toEqual({ 401: 10, 429: 2 });
    const refused = await loginFrom('127.0.0.52', u.username, u.password, device);
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.text).message).toMatch(/from this device/);
    // Those guesses were the device's: a new address still has its own 10 (they count for no one else).
    expect((await loginFrom('127.0.0.53', u.username, u.password)).status).toBe(200);
  }, 180_000);

  it('a known address has its own limit too: 10 wrong passwords from it, then 429 from this address', async () => {
    const u = await userWithSession('user');
    expect((await loginFrom('127.0.0.61', u.username, u.password)).status).toBe(200);
    const wrong = await Promise.all(
      Array.from({ length: 11 }, (_, i) => loginFrom('127.0.0.61', u.username, `wrong-${i}`)),
    );
    expect(tally(wrong.map((w) => w.status))).toEqual({ 401: 10, 429: 1 });
    expect(JSON.parse(wrong.find((w) => w.status === 429)!.text).message).toMatch(/from this address/);
  }, 180_000);

  it('every guess counts toward the account: six devices make at most 50 guesses, not 10 each', async () => {
    const u = await userWithSession('user');
    // Six cookie-less logins: six devices of the user.
    const devices: string[] = [];
    for (let i = 0; i < 6; i++) devices.push(deviceOf(await loginFrom('127.0.0.81', u.username, u.password)));
    expect(new Set(devices).size).toBe(6);
    const statuses: number[] = [];
    for (const device of devices) {
      const burst = await Promise.all(
        Array.from({ length: 10 }, (_, i) => loginFrom('127.0.0.82', u.username, `wrong-${i}`, device)),
      );
      statuses.push(...burst.map((b) => b.status));
    }
    expect(tally(statuses)).toEqual({ 401: 50, 429: 10 });
    // The account is full: a new client is refused, naming the account.
    const fresh = await loginFrom('127.0.0.83', u.username, u.password);
    expect(fresh.status, fresh.text).toBe(429);
    expect(JSON.parse(fresh.text).message).not.toMatch(/device|address/);
  }, 180_000);

  it("a password change revokes the user's devices and known addresses", async () => {
    const u = await userWithSession('user');
    const device = deviceOf(await loginFrom('127.0.0.84', u.username, u.password));
    const password = `${u.password}-new`;
    const changed = await call('POST', '/api/users/update', {
      body: { username: u.username, password },
      cookie: await adminCookie(),
    });
    expect(changed.status, changed.text).toBe(200);
    // New clients fill their share of the account.
    expect(tally(await attack(u.username, ['127.0.0.85', '127.0.0.86', '127.0.0.87']))).toEqual({ 401: 30 });
    // The device cookie from before the change is no device any more, and its address is no longer known:
    // the new password is refused like any new client's.
    expect((await loginFrom('127.0.0.88', u.username, password, device)).status).toBe(429);
    expect((await loginFrom('127.0.0.84', u.username, password)).status).toBe(429);
    const [{ n }] = await db.sql`select count(*)::int as n from login_devices where username = ${u.username}`;
    expect(n).toBe(0);
  }, 180_000);

  it("a removed user's devices die with it: a later account of the same name inherits none", async () => {
    const u = await userWithSession('user');
    const device = deviceOf(await loginFrom('127.0.0.89', u.username, u.password));
    const cookie = await adminCookie();
    expect((await call('POST', '/api/users/remove', { body: { username: u.username }, cookie })).status).toBe(
      200,
    );
    const password = `${u.password}-again`;
    const again = await call('POST', '/api/users/signup', {
      body: { username: u.username, password },
      cookie,
    });
    expect(again.status, again.text).toBe(201);
    expect(tally(await attack(u.username, ['127.0.0.90', '127.0.0.91', '127.0.0.92']))).toEqual({ 401: 30 });
    // The old account's device and address are nothing to the new account.
    expect((await loginFrom('127.0.0.93', u.username, password, device)).status).toBe(429);
    expect((await loginFrom('127.0.0.89', u.username, password)).status).toBe(429);
  }, 180_000);

  it('a user keeps at most 10 devices: the 11th evicts the least recently used', async () => {
    const u = await userWithSession('user');
    const devices: string[] = [];
    for (let i = 0; i < 11; i++)
      devices.push(deviceOf(await loginFrom('127.0.0.94', u.username, u.password)));
    const rows = await db.sql`
      select d.id_hash from login_devices d join users u on u.id = d.user_id where u.username = ${u.username}`;
    const kept = new Set(rows.map((r) => r.id_hash as string));
    expect(kept.size).toBe(10);
    const hashOf = (pair: string) => sha256(decodeURIComponent(pair.slice('MMGISDevice='.length)));
    expect(kept.has(hashOf(devices[0]))).toBe(false);
    for (const d of devices.slice(1)) expect(kept.has(hashOf(d))).toBe(true);
  }, 180_000);
});
