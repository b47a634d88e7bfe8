/**
 * MMGIS's `plugins/core/backend/Broadcast/tests/broadcast.spec.js`, ported (README.md). Its
 * `loginAsAdmin` logs in as the CI's administrator; here the suite's administrator.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { apiUrl } from '../helpers.ts';
import { ensureReferenceMission } from './missions.ts';
import { newRequestContext, type SpecRequest } from './playwright.ts';

async function loginAsAdmin(request: SpecRequest): Promise<boolean> {
  const { username, password } = inject('admin');
  const response = await request.post('/api/users/login', { data: { username, password } });
  return response.status() === 200 && !!response.headers()['set-cookie'];
}

/**
 * The spec reads `ENABLE_MMGIS_WEBSOCKETS` as the server's setting. This service always has its WebSocket
 * API, and its pages carry `ENABLE_MMGIS_WEBSOCKETS: 'true'` (docs/mission-site.md, docs/live-updates.md).
 */
const ENABLE_MMGIS_WEBSOCKETS = 'true';

describe('Broadcast API', () => {
  const baseURL = apiUrl();
  beforeAll(ensureReferenceMission);

  it('POST /api/broadcast/layerUpdate rejects unauthenticated requests', async () => {
    const response = await newRequestContext(baseURL).post(`${baseURL}/api/broadcast/layerUpdate`, {
      data: { mission: 'Reference-Mission', layerName: 'some-layer' },
    });
    expect(response.status()).not.toBe(500);
    const ct = response.headers()['content-type'] || '';
    if (ct.includes('application/json')) {
      const body = await response.json();
      expect(body.status).toBe('failure');
    } else {
      expect(response.ok()).toBeTruthy();
    }
  });

  it('POST /api/broadcast/layerUpdate validates body and reports websocket state', async (ctx) => {
    const request = newRequestContext(baseURL);
    ctx.skip(!(await loginAsAdmin(request)), 'could not log in as admin');
    let body = await (
      await request.post(`${baseURL}/api/broadcast/layerUpdate`, { data: { mission: 'Reference-Mission' } })
    ).json();
    ctx.skip(body.message === 'Unauthorized!', 'admin session not accepted in this AUTH mode');
    expect(body.status).toBe('failure');
    expect(body.message).toContain('layerName');

    body = await (
      await request.post(`${baseURL}/api/broadcast/layerUpdate`, { data: { layerName: 'some-layer' } })
    ).json();
    expect(body.status).toBe('failure');
    expect(body.message).toContain('mission');

    body = await (
      await request.post(`${baseURL}/api/broadcast/layerUpdate`, {
        data: { mission: 'Reference-Mission', layerName: 'some-layer' },
      })
    ).json();
    expect(body.status).toBe('success');
    expect(typeof body.broadcasted).toBe('boolean');
    expect(body.broadcasted).toBe(ENABLE_MMGIS_WEBSOCKETS === 'true');

    body = await (
      await request.post(`${baseURL}/api/broadcast/layerUpdate`, {
        data: { mission: 'Reference-Mission', layerName: ['layer-a', 'layer-b'] },
      })
    ).json();
    expect(body.status).toBe('success');
  });
});
