import { describe, expect, inject, it } from 'vitest';
import { adminCookie, call, login, uniqueName } from '../helpers.ts';

/**
 * The attack: on a fresh deployment (AUTH defaulted to none), an anonymous users/signup made before
 * first_signup meant the deployment could never get an administrator, since first_signup checked "no
 * user". Now first_signup works while no administrator exists, an anonymous signup is refused until one
 * does (docs/auth.md); packaging without an explicit AUTH fails (tests/unit/package-no-auth.test.ts). The suite's
 * global setup (tests/setup/global.ts) made the pre-admin state: an account made before any admin, an
 * anonymous signup, then the racing first_signup calls.
 */
describe('the first administrator cannot be pre-empted', () => {
  it('refused an anonymous signup while no administrator existed', () => {
    const { signup } = inject('preAdmin');
    expect(signup.status).toBe(403);
    expect(signup.body).toEqual({ status: 'failure', message: expect.stringMatching(/first_signup/) });
  });

  it('first_signup still created the one administrator although a user account already existed', async () => {
    const { earlyUser } = inject('preAdmin');
    expect(inject('firstSignupStatuses').filter((s) => s === 201)).toHaveLength(1);
    const list = await call('GET', '/api/users/list', { cookie: await adminCookie() });
    const byName = new Map(list.body.body.users.map((u: any) => [u.username, u.role]));
    expect(byName.get(earlyUser.username)).toBe('user');
    expect(byName.get(inject('admin').username)).toBe('admin');
    expect(byName.has('early_anonymous')).toBe(false);
    // the early account cannot make itself the administrator now either
    const again = await call('POST', '/api/users/first_signup', {
      body: { username: earlyUser.username, password: earlyUser.password },
    });
    expect(again.status).toBe(403);
    const cookie = await login(earlyUser.username, earlyUser.password);
    expect((await call('GET', '/api/users/list', { cookie })).status).toBe(403);
  });

  it('once an administrator exists, anonymous signup works under AUTH=none', async () => {
    const r = await call('POST', '/api/users/signup', {
      body: { username: uniqueName('later'), password: 'later-password' },
    });
    expect(r.status, r.text).toBe(201);
  });
});
