import { describe, expect, inject, it } from 'vitest';
import { startService } from '../../scripts/devServer.ts';
import { call, login, userWithSession } from '../helpers.ts';

describe('sessions', () => {
  it('survive a restart of the service (they live in the database)', async () => {
    const u = await userWithSession('user');
    const first = await startService({ databaseUrl: inject('databaseUrl'), env: { LOG_LEVEL: 'warn' } });
    let cookie: string;
    try {
      cookie = await login(u.username, u.password, first.url);
      expect(
        (await call('GET', '/api/users/logged_in', { base: first.url, cookie })).body.body.loggedIn,
      ).toBe(true);
    } finally {
      await first.stop();
    }
    const second = await startService({ databaseUrl: inject('databaseUrl'), env: { LOG_LEVEL: 'warn' } });
    try {
      const res = await call('GET', '/api/users/logged_in', { base: second.url, cookie });
      expect(res.body).toMatchObject({ status: 'success', body: { loggedIn: true, user: u.username } });
    } finally {
      await second.stop();
    }
  }, 120_000);
});
