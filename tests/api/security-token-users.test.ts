import { describe, expect, inject, it } from 'vitest';
import { adminCookie, apiUrlLocal, call, login, uniqueName, userWithSession } from '../helpers.ts';

/**
 * The attack: a leaked expiring API token (even an administrator's) created an account, made it an
 * administrator, changed the real administrator's password, and so became permanent access. User
 * management now needs an administrator session (docs/auth.md); every step below must fail with 403.
 */
const base = () => apiUrlLocal();
const admin = () => inject('admin');

async function leakedToken(): Promise<string> {
  const gen = await call('POST', '/api/longtermtoken/generate', {
    base: base(),
    cookie: await adminCookie(),
    body: { name: 'leaked', period: 3_600_000 },
  });
  expect(gen.status, gen.text).toBe(201);
  expect(gen.body.body.expiresAt).not.toBeNull();
  return gen.body.body.token;
}

const sessionMessage = /administrator session.*token cannot manage users/;

describe('a leaked token cannot manage users (AUTH=local)', () => {
  it('cannot sign up an account: 403, and the account does not exist', async () => {
    const token = await leakedToken();
    const mallory = { username: uniqueName('mallory'), password: 'mallory-password' };
    const r = await call('POST', '/api/users/signup', { base: base(), token, body: mallory });
    expect(r.status, r.text).toBe(403);
    expect(r.body).toEqual({ status: 'failure', message: expect.stringMatching(sessionMessage) });
    await expect(login(mallory.username, mallory.password, base())).rejects.toThrow(/401/);
  });

  it('cannot raise a role, change missions or a password: 403, nothing changes', async () => {
    const token = await leakedToken();
    const u = await userWithSession('user', ['Mars'], base());
    for (const change of [{ role: 'admin' }, { missions: ['Earth'] }, { password: 'taken-over-password' }]) {
      const r = await call('POST', '/api/users/update', {
        base: base(),
        token,
        body: { username: u.username, ...change },
      });
      expect(r.status, `${JSON.stringify(change)} ${r.text}`).toBe(403);
      expect(r.body.message).toMatch(sessionMessage);
    }
    const list = await call('GET', '/api/users/list', { base: base(), token });
    expect(list.status).toBe(200);
    expect(list.body.body.users.find((x: any) => x.username === u.username)).toMatchObject({
      role: 'user',
      missions: ['Mars'],
    });
    // the old password still works and the user's session was not ended
    await login(u.username, u.password, base());
    expect(
      (await call('GET', '/api/users/logged_in', { base: base(), cookie: u.cookie })).body.body.loggedIn,
    ).toBe(true);
  });

  it("cannot take over the real administrator's password", async () => {
    const token = await leakedToken();
    const r = await call('POST', '/api/users/update', {
      base: base(),
      token,
      body: { username: admin().username, password: 'locked-out-forever' },
    });
    expect(r.status, r.text).toBe(403);
    await login(admin().username, admin().password, base());
  });

  it('cannot remove a user: 403, the user remains', async () => {
    const token = await leakedToken();
    const u = await userWithSession('user', [], base());
    const r = await call('POST', '/api/users/remove', {
      base: base(),
      token,
      body: { username: u.username },
    });
    expect(r.status, r.text).toBe(403);
    expect(r.body.message).toMatch(sessionMessage);
    await login(u.username, u.password, base());
  });

  it('an administrator session still manages users; a token may still list them and set an email', async () => {
    const cookie = await adminCookie();
    const name = uniqueName('managed');
    const su = await call('POST', '/api/users/signup', {
      base: base(),
      cookie,
      body: { username: name, password: 'managed-password' },
    });
    expect(su.status, su.text).toBe(201);
    const up = await call('POST', '/api/users/update', {
      base: base(),
      cookie,
      body: { username: name, role: 'admin', missions: ['Mars'] },
    });
    expect(up.status, up.text).toBe(200);
    const token = await leakedToken();
    const mail = await call('POST', '/api/users/update', {
      base: base(),
      token,
      body: { username: name, email: 'managed@example.test' },
    });
    expect(mail.status, mail.text).toBe(200);
    expect(mail.body.body.user).toMatchObject({ email: 'managed@example.test', role: 'admin' });
    const rm = await call('POST', '/api/users/remove', { base: base(), cookie, body: { username: name } });
    expect(rm.status, rm.text).toBe(200);
  });
});
