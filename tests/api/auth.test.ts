import { describe, expect, inject, it } from 'vitest';
import {
  adminCookie,
  adminToken,
  apiUrl,
  apiUrlLocal,
  call,
  login,
  uniqueName,
  userWithSession,
} from '../helpers.ts';

const admin = () => inject('admin');

describe('first_signup', () => {
  it('created the first admin while no admin existed, and refuses afterwards', async () => {
    const statuses = inject('firstSignupStatuses');
    // six racing calls: exactly one 201, the others 403; then one more call: 403
    expect([...statuses].sort()).toEqual([201, 403, 403, 403, 403, 403, 403]);
    const list = await call('GET', '/api/users/list', {
      cookie: await login(admin().username, admin().password),
    });
    const racers = list.body.body.users.filter((u: any) => /^admin\d?$/.test(u.username));
    expect(racers.map((u: any) => [u.username, u.role])).toEqual([[admin().username, 'admin']]);
    const again = await call('POST', '/api/users/first_signup', {
      body: { username: uniqueName('x'), password: 'long enough' },
    });
    expect(again.status).toBe(403);
    expect(again.body).toMatchObject({ status: 'failure' });
    expect(again.body.message).toMatch(/first_signup/);
  });
});

describe('has', () => {
  it('answers whether an account exists, to anyone, under both modes (the established shape)', async () => {
    for (const base of [apiUrl(), apiUrlLocal()]) {
      // the established admin login page posts `{}` as a form
      const res = await call('POST', '/api/users/has', {
        base,
        body: '',
        headers: { 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8' },
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'success', has: true });
    }
  });
});

describe('login, logged_in, logout', () => {
  it('logs in with an HttpOnly MMGISSession cookie and answers the spec bodies', async () => {
    const res = await fetch(`${apiUrl()}/api/users/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: admin().username, password: admin().password }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'success', username: admin().username, role: 'admin' });
    const setCookie = res.headers.get('set-cookie')!;
    expect(setCookie).toMatch(/^MMGISSession=[A-Za-z0-9_-]{20,};/);
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Lax/i);
    const cookie = setCookie.split(';')[0];

    const yes = await call('GET', '/api/users/logged_in', { cookie });
    expect(yes.status).toBe(200);
    expect(yes.body).toMatchObject({ status: 'success', body: { loggedIn: true, user: admin().username } });
    expect(yes.body.message).toContain(admin().username);

    const out = await call('POST', '/api/users/logout', { cookie });
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toMatch(/MMGISSession=;/);

    const no = await call('GET', '/api/users/logged_in', { cookie });
    expect(no.status).toBe(200);
    expect(no.body).toEqual({
      status: 'failure',
      message: expect.stringMatching(/no user/i),
      body: { loggedIn: false, user: null },
    });
  });

  it('answers 200 "not logged in" without a cookie and with a malformed or unknown cookie', async () => {
    for (const cookie of [
      undefined,
      'MMGISSession=garbage',
      'MMGISSession=%%%; x',
      '=;;;',
      `MMGISSession=${'a'.repeat(5000)}`,
    ]) {
      const res = await call('GET', '/api/users/logged_in', { cookie });
      expect(res.status).toBe(200);
      expect(res.body.body).toEqual({ loggedIn: false, user: null });
    }
  });

  it('refuses wrong credentials with one message for unknown user and bad password', async () => {
    const bad = await call('POST', '/api/users/login', {
      body: { username: admin().username, password: 'nope' },
    });
    const unknown = await call('POST', '/api/users/login', {
      body: { username: uniqueName('ghost'), password: 'x' },
    });
    expect(bad.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(bad.body.message).toBe(unknown.body.message);
    expect(bad.headers.get('set-cookie')).toBeNull();
  });

  it('logout without a session still answers 200', async () => {
    const res = await call('POST', '/api/users/logout');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('success');
  });
});

describe('signup', () => {
  it('under AUTH=none lets anyone create a user (role user); duplicates get 409', async () => {
    const username = uniqueName('self');
    const res = await call('POST', '/api/users/signup', { body: { username, password: 'password-1' } });
    expect(res.status).toBe(201);
    expect(res.body.body).toEqual({ username, role: 'user' });
    const dup = await call('POST', '/api/users/signup', { body: { username, password: 'password-2' } });
    expect(dup.status).toBe(409);
    expect(dup.body.message).toContain(username);
    const cookie = await login(username, 'password-1');
    const me = await call('GET', '/api/users/logged_in', { cookie });
    expect(me.body.body.user).toBe(username);
  });

  it('under AUTH=local only an admin may create accounts', async () => {
    const base = apiUrlLocal();
    const anon = await call('POST', '/api/users/signup', {
      base,
      body: { username: uniqueName('a'), password: 'password-p' },
    });
    expect(anon.status).toBe(401);
    const user = await userWithSession('user', [], base);
    const byUser = await call('POST', '/api/users/signup', {
      base,
      cookie: user.cookie,
      body: { username: uniqueName('b'), password: 'password-p' },
    });
    expect(byUser.status).toBe(403);
    const username = uniqueName('c');
    const byAdmin = await call('POST', '/api/users/signup', {
      base,
      cookie: await adminCookie(),
      body: { username, password: 'password-p' },
    });
    expect(byAdmin.status).toBe(201);
  });
});

describe('admin user management', () => {
  it('lists, updates and removes users; non-admins get 401/403', async () => {
    const u = await userWithSession('user');
    const list = await call('GET', '/api/users/list', { token: adminToken() });
    expect(list.status).toBe(200);
    const entry = list.body.body.users.find((x: any) => x.username === u.username);
    expect(entry).toMatchObject({ username: u.username, role: 'user', missions: [] });
    expect(JSON.stringify(list.body)).not.toMatch(/password|scrypt/i);

    expect((await call('GET', '/api/users/list')).status).toBe(401);
    expect((await call('GET', '/api/users/list', { cookie: u.cookie })).status).toBe(403);
    expect(
      (
        await call('POST', '/api/users/update', {
          cookie: u.cookie,
          body: { username: u.username, role: 'admin' },
        })
      ).status,
    ).toBe(403);

    const up = await call('POST', '/api/users/update', {
      cookie: await adminCookie(),
      body: { username: u.username, role: 'admin', missions: ['Mars'] },
    });
    expect(up.status).toBe(200);
    expect(up.body.body.user).toMatchObject({ role: 'admin', missions: ['Mars'] });
    // the role change applies on the user's next request
    expect((await call('GET', '/api/users/list', { cookie: u.cookie })).status).toBe(200);

    expect(
      (await call('POST', '/api/users/remove', { cookie: u.cookie, body: { username: u.username } })).status,
    ).toBe(400);
    const rm = await call('POST', '/api/users/remove', {
      cookie: await adminCookie(),
      body: { username: u.username },
    });
    expect(rm.status).toBe(200);
    expect((await call('GET', '/api/users/logged_in', { cookie: u.cookie })).body.body.loggedIn).toBe(false);
    const again = await call('POST', '/api/users/remove', {
      cookie: await adminCookie(),
      body: { username: u.username },
    });
    expect(again.status).toBe(404);
  });

  it("a password change ends the user's sessions", async () => {
    const u = await userWithSession('user');
    const up = await call('POST', '/api/users/update', {
      cookie: await adminCookie(),
      body: { username: u.username, password: 'new-password' },
    });
    expect(up.status).toBe(200);
    expect((await call('GET', '/api/users/logged_in', { cookie: u.cookie })).body.body.loggedIn).toBe(false);
    expect(
      (await call('POST', '/api/users/login', { body: { username: u.username, password: u.password } }))
        .status,
    ).toBe(401);
    await login(u.username, 'new-password');
  });
});

describe('long-term tokens', () => {
  it('generates a token shown once, lists it without the secret, and revokes it', async () => {
    const gen = await call('POST', '/api/longtermtoken/generate', {
      cookie: await adminCookie(),
      body: { name: 'ci' },
    });
    expect(gen.status).toBe(201);
    const t = gen.body.body;
    expect(t).toMatchObject({ name: 'ci', expiresAt: null });
    expect(t.token).toMatch(/^mmgis_[A-Za-z0-9_-]{40,}$/);
    expect(new Date(t.createdAt).toISOString()).toBe(t.createdAt);

    const ok = await call('GET', '/api/users/list', { token: t.token });
    expect(ok.status).toBe(200);

    const list = await call('GET', '/api/longtermtoken/get', { cookie: await adminCookie() });
    expect(list.status).toBe(200);
    const entry = list.body.tokens.find((x: any) => x.id === t.id);
    expect(entry).toMatchObject({
      id: t.id,
      name: 'ci',
      prefix: t.token.slice(0, 12),
      token: `ci: ${t.token.slice(0, 12)}...`,
      period: 'never',
      expiresAt: null,
    });
    expect(entry.lastUsedAt).not.toBeNull();
    expect(list.text).not.toContain(t.token);

    const clear = await call('POST', '/api/longtermtoken/clear', {
      cookie: await adminCookie(),
      body: { id: t.id },
    });
    expect(clear.status).toBe(200);
    const revoked = await call('GET', '/api/users/list', { token: t.token });
    expect(revoked.status).toBe(401);
    expect(revoked.body.message).toMatch(/invalid/i);
    expect(
      (await call('POST', '/api/longtermtoken/clear', { cookie: await adminCookie(), body: { id: t.id } }))
        .status,
    ).toBe(404);
    expect(
      (await call('POST', '/api/longtermtoken/clear', { cookie: await adminCookie(), body: { id: 'nope' } }))
        .status,
    ).toBe(400);
  });

  it('expires a token with a 1 ms period (401 "expired"), even on public endpoints', async () => {
    const gen = await call('POST', '/api/longtermtoken/generate', {
      cookie: await adminCookie(),
      body: { period: 1 },
    });
    expect(gen.status).toBe(201);
    expect(Date.parse(gen.body.body.expiresAt) - Date.parse(gen.body.body.createdAt)).toBeLessThan(1000);
    await new Promise((r) => setTimeout(r, 20));
    for (const path of ['/api/users/list', '/api/configure/missions']) {
      const res = await call('GET', path, { token: gen.body.body.token });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ status: 'failure', message: expect.stringMatching(/expired/i) });
    }
  });

  it('accepts period as a numeric string and refuses bad periods', async () => {
    const gen = await call('POST', '/api/longtermtoken/generate', {
      cookie: await adminCookie(),
      body: { period: '3600000' },
    });
    expect(gen.status).toBe(201);
    const span = Date.parse(gen.body.body.expiresAt) - Date.parse(gen.body.body.createdAt);
    expect(span).toBe(3_600_000);
    // the list's `period` (the established configure app computes the days left from it)
    const list = await call('GET', '/api/longtermtoken/get', { cookie: await adminCookie() });
    expect(list.body.tokens.find((t: any) => t.id === gen.body.body.id).period).toBe('3600000');
    for (const period of [-5, 0, 'soon', 1.5, '12abc']) {
      const bad = await call('POST', '/api/longtermtoken/generate', {
        cookie: await adminCookie(),
        body: { period },
      });
      expect(bad.status).toBe(400);
      expect(bad.body.message).toMatch(/period/);
    }
  });

  it('only admins generate, list and clear tokens', async () => {
    const u = await userWithSession('user');
    for (const [method, path] of [
      ['POST', '/api/longtermtoken/generate'],
      ['GET', '/api/longtermtoken/get'],
      ['POST', '/api/longtermtoken/clear'],
    ] as const) {
      const body = method === 'POST' ? { id: '00000000-0000-0000-0000-000000000000' } : undefined;
      expect((await call(method, path, { body })).status).toBe(401);
      expect((await call(method, path, { body, cookie: u.cookie })).status).toBe(403);
    }
  });
});

describe('who may call what', () => {
  it('configure missions is public under both modes', async () => {
    expect((await call('GET', '/api/configure/missions')).status).toBe(200);
    expect((await call('GET', '/api/configure/missions', { base: apiUrlLocal() })).status).toBe(200);
  });

  it('garbage Authorization headers get 401 with a message, never 500', async () => {
    for (const authorization of [
      'Bearer',
      'Bearer ',
      'Basic abc',
      'Bearer a b',
      `Bearer ${'x'.repeat(2000)}`,
      "Bearer ' or 1=1 --",
    ]) {
      const res = await call('GET', '/api/configure/missions', { headers: { authorization } });
      expect(res.status).toBe(401);
      expect(res.body.status).toBe('failure');
      expect(typeof res.body.message).toBe('string');
    }
  });
});

describe('bad input', () => {
  const cases: [string, unknown, RegExp][] = [
    ['malformed JSON', '{"username": "a",', /not valid JSON/],
    ['no body', undefined, /body is required/],
    ['missing password', { username: 'a' }, /password/],
    ['wrong type', { username: 5, password: 'x' }, /username/],
    ['very long username', { username: 'a'.repeat(10_000), password: 'x' }, /username/],
    ['array body', [1, 2], /body/],
    ['injection in username', { username: "a'; drop table users; --", password: 'x' }, /username/],
  ];
  for (const [label, body, message] of cases) {
    it(`login with ${label} → 400 naming the problem`, async () => {
      const res = await call('POST', '/api/users/login', { body });
      expect(res.status).toBe(400);
      expect(res.body.status).toBe('failure');
      expect(res.body.message).toMatch(message);
    });
  }

  it('unknown /api routes answer 404 JSON', async () => {
    const res = await call('GET', '/api/nothing/here');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ status: 'failure', message: expect.stringContaining('/api/nothing/here') });
  });

  it('CORS headers are present on answers and errors', async () => {
    const ok = await call('GET', '/api/configure/missions', { headers: { origin: 'http://example.test' } });
    // The Lambda sends '*' (and so does serverless-offline: tests/api/cors.test.ts).
    expect(ok.headers.get('access-control-allow-origin')).toBe('*');
    const err = await call('POST', '/api/users/login', {
      body: '{',
      headers: { origin: 'http://example.test' },
    });
    expect(err.headers.get('access-control-allow-origin')).toBe('*');
  });
});
