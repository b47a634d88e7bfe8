import { createServer } from 'node:net';
import { describe, expect, inject, it } from 'vitest';
import { startService } from '../../local/devServer.ts';
import { freePort } from '../../local/embedded/start.ts';
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

describe('starting the service', () => {
  it('fails at once, naming it, when the port it was asked for is taken', async () => {
    const port = await freePort();
    const holder = createServer();
    await new Promise<void>((ok) => holder.listen(port, '127.0.0.1', () => ok()));
    const started = Date.now();
    try {
      await expect(
        startService({ databaseUrl: inject('databaseUrl'), port, env: { LOG_LEVEL: 'warn' } }),
      ).rejects.toThrow(`port ${port} is already in use`);
      // serverless-offline keeps running when it cannot listen; without the check this waited 120 s.
      expect(Date.now() - started).toBeLessThan(45_000);
    } finally {
      holder.close();
    }
  }, 60_000);
});
