import { describe, expect, it } from 'vitest';
import { adminCookie, adminToken, apiUrl, call, login, uniqueName, userWithSession } from '../helpers.ts';

/** The account rules of docs/auth.md: throttling, password length, token limits, cross-site refusal. */
describe('login throttling', () => {
  // 180 s: each login reserves its attempt in a transaction; through the Data API stand-in on a busy
  // machine these 14 logins took 48 s.
  it('after 10 failures for one username and address: 429 with Retry-After, even with the right password', async () => {
    const u = await userWithSession('user');
    for (let i = 0; i < 10; i++) {
      const r = await call('POST', '/api/users/login', {
        body: { username: u.username, password: 'wrong-password' },
      });
      expect(r.status).toBe(401);
    }
    const r = await call('POST', '/api/users/login', {
      body: { username: u.username, password: u.password },
    });
    expect(r.status, r.text).toBe(429);
    const retry = Number(r.headers.get('retry-after'));
    expect(retry).toBeGreaterThan(0);
    expect(retry).toBeLessThanOrEqual(15 * 60);
    expect(r.body.status).toBe('failure');
    // the existing session is untouched, and another username from the same address is not affected
    expect((await call('GET', '/api/users/logged_in', { cookie: u.cookie })).body.body.loggedIn).toBe(true);
    const other = await userWithSession('user');
    expect(other.cookie).toMatch(/^MMGISSession=/);
  }, 180_000);
});

describe('new passwords', () => {
  it('have at least 8 characters (signup, update, first_signup)', async () => {
    const s = await call('POST', '/api/users/signup', {
      body: { username: uniqueName('pw'), password: 'short' },
    });
    expect(s.status).toBe(400);
    expect(s.body.message).toMatch(/password/);
    const u = await userWithSession('user');
    const up = await call('POST', '/api/users/update', {
      cookie: await adminCookie(),
      body: { username: u.username, password: '1234567' },
    });
    expect(up.status).toBe(400);
    expect(up.body.message).toMatch(/password/);
    const f = await call('POST', '/api/users/first_signup', {
      body: { username: uniqueName('f'), password: 'x' },
    });
    expect(f.status).toBe(400);
  });
});

describe('tokens mint nothing', () => {
  it('a Bearer token gets 403 on generate, get and clear; an admin session may', async () => {
    for (const [method, path, body] of [
      ['POST', '/api/longtermtoken/generate', { name: 'escalate', period: 'never' }],
      ['GET', '/api/longtermtoken/get', undefined],
      ['POST', '/api/longtermtoken/clear', { id: '00000000-0000-0000-0000-000000000000' }],
    ] as const) {
      const r = await call(method, path, { token: adminToken(), body });
      expect(r.status, `${path} ${r.text}`).toBe(403);
      expect(r.body.message).toMatch(/session/);
    }
    const admin = await userWithSession('admin');
    expect((await call('GET', '/api/longtermtoken/get', { cookie: admin.cookie })).status).toBe(200);
  });
});

describe('cross-site requests with the session cookie', () => {
  it('another origin gets 403 and nothing changes; own origin and no Origin pass; Bearer is unaffected', async () => {
    const admin = await userWithSession('admin');
    const add = (
      mission: string,
      headers: Record<string, string>,
      auth: { cookie?: string; token?: string },
    ) => call('POST', '/api/configure/add', { ...auth, headers, body: { mission } });
    const evil = uniqueName('M_evil');
    const refused = await add(evil, { origin: 'https://evil.example' }, { cookie: admin.cookie });
    expect(refused.status, refused.text).toBe(403);
    expect(refused.body.message).toMatch(/origin/i);
    const byReferer = await add(evil, { referer: 'https://evil.example/page' }, { cookie: admin.cookie });
    expect(byReferer.status).toBe(403);
    expect((await call('GET', `/api/configure/get?mission=${evil}`)).status).toBe(404);

    const own = uniqueName('M_own');
    expect((await add(own, { origin: new URL(apiUrl()).origin }, { cookie: admin.cookie })).status).toBe(201);
    const script = uniqueName('M_script');
    expect((await add(script, {}, { cookie: admin.cookie })).status).toBe(201);
    const bearer = uniqueName('M_bearer');
    expect((await add(bearer, { origin: 'https://evil.example' }, { token: adminToken() })).status).toBe(201);
    for (const m of [own, script, bearer]) {
      await call('POST', '/api/configure/destroy', { token: adminToken(), body: { mission: m } });
    }
  });
});

describe('logged_in', () => {
  it('answers 200 (not logged in) with an invalid Bearer token', async () => {
    const r = await call('GET', '/api/users/logged_in', { token: 'mmgis_not-a-real-token' });
    expect(r.status).toBe(200);
    expect(r.body.body).toEqual({ loggedIn: false, user: null });
    const garbled = await call('GET', '/api/users/logged_in', { headers: { authorization: 'Basic abc' } });
    expect(garbled.status).toBe(200);
  });
});

describe('an admin changing their own password', () => {
  it('keeps the session that made the change and ends the others', async () => {
    const a = await userWithSession('admin');
    const other = await login(a.username, a.password);
    const up = await call('POST', '/api/users/update', {
      cookie: a.cookie,
      body: { username: a.username, password: 'a-new-password' },
    });
    expect(up.status, up.text).toBe(200);
    expect((await call('GET', '/api/users/logged_in', { cookie: a.cookie })).body.body.loggedIn).toBe(true);
    expect((await call('GET', '/api/users/logged_in', { cookie: other })).body.body.loggedIn).toBe(false);
  });
});
