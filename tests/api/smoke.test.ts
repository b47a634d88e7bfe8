import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { apiUrl, call } from '../helpers.ts';

describe('service', () => {
  it('answers GET /api/configure/missions with a list', async () => {
    const res = await call('GET', '/api/configure/missions');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('success');
    expect(Array.isArray(res.body.missions)).toBe(true);
  });

  it('keeps an idle keep-alive connection for 65 s, and says so (local/offline/keep-alive.cjs)', async () => {
    const agent = new http.Agent({ keepAlive: true });
    const header = await new Promise<string | string[] | undefined>((ok, fail) => {
      http
        .get(`${apiUrl()}/api/ogc/conformance?f=json`, { agent }, (res) => {
          res.resume();
          res.on('end', () => ok(res.headers['keep-alive']));
        })
        .on('error', fail);
    });
    agent.destroy();
    expect(header).toBe('timeout=65');
  });
});
