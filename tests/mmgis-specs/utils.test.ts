/**
 * MMGIS's `plugins/core/backend/Utils/tests/utils.spec.js` (the newer form of `NASA-AMMOS/MMGIS/tests/e2e/api/utils.spec.js`:
 * the same requests and assertions, plus the AUTH=local login-page cases), ported: README.md.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { apiUrl } from '../helpers.ts';
import { ensureReferenceMission } from './missions.ts';
import { newRequestContext } from './playwright.ts';

describe('Utils API', () => {
  const baseURL = apiUrl();
  beforeAll(ensureReferenceMission);

  it('GET /api/utils/healthcheck returns 200', async () => {
    const request = newRequestContext(baseURL);
    const response = await request.get(`${baseURL}/api/utils/healthcheck`);
    const text = await response.text();
    if (text.includes('<!DOCTYPE html>') || text.includes('<title>MMGIS / Login</title>')) {
      expect(response.ok()).toBeTruthy();
    } else {
      expect(response.ok()).toBeTruthy();
      expect(text).toContain('Alive');
    }
  });

  it('GET /api/configure/missions returns array with Reference-Mission', async (ctx) => {
    const request = newRequestContext(baseURL);
    const response = await request.get(`${baseURL}/api/configure/missions`);
    expect(response.ok()).toBeTruthy();
    const data = await response.json();
    expect(data.status).toBe('success');
    expect(Array.isArray(data.missions)).toBeTruthy();
    ctx.skip(data.missions.length === 0, 'No missions found');
    expect(data.missions).toContain('Reference-Mission');
  });

  it('GET /api/configure/get returns Reference-Mission config', async (ctx) => {
    const request = newRequestContext(baseURL);
    const listData = await (await request.get(`${baseURL}/api/configure/missions`)).json();
    ctx.skip(!listData.missions?.includes('Reference-Mission'), 'Reference-Mission not available');
    const response = await request.get(`${baseURL}/api/configure/get?mission=Reference-Mission&full=true`);
    expect(response.ok()).toBeTruthy();
    const data = await response.json();
    expect(data.status).toBe('success');
    expect(data.mission).toBe('Reference-Mission');
    expect(data.config).toBeDefined();
    expect(data.config.msv).toBeDefined();
    expect(data.config.msv.mission).toBe('Reference-Mission');
  });

  it('invalid mission name does not cause 500', async () => {
    const request = newRequestContext(baseURL);
    const response = await request.get(
      `${baseURL}/api/configure/get?mission=NonExistentMission99999&full=true`,
    );
    expect(response.status()).toBeLessThan(500);
    const data = await response.json();
    expect(data.status).toBe('failure');
  });

  describe('Time-directory listing (path with _time_)', () => {
    const times = { starttime: '2024-01-01T00:00:00Z', endtime: '2024-12-31T23:59:59Z' };

    it('rejects path traversal in time-directory URL', async (ctx) => {
      const request = newRequestContext(baseURL);
      const response = await request.get(`${baseURL}/api/utils/queryTilesetTimes`, {
        params: { path: '/Missions/../../etc/passwd_time_/{z}/{x}/{y}.png', ...times },
      });
      const body = await response.json().catch(() => null);
      ctx.skip(!body, 'Non-JSON response (AUTH=local)');
      expect(body.status).toBe('failure');
    });

    it('rejects URL-encoded path traversal', async (ctx) => {
      const request = newRequestContext(baseURL);
      const response = await request.get(`${baseURL}/api/utils/queryTilesetTimes`, {
        params: { path: '/Missions/%2e%2e/%2e%2e/etc/shadow_time_/{z}/{x}/{y}.png', ...times },
      });
      const body = await response.json().catch(() => null);
      ctx.skip(!body, 'Non-JSON response (AUTH=local)');
      expect(body.status).toBe('failure');
    });

    it('valid mission path does not return 500', async () => {
      const request = newRequestContext(baseURL);
      const response = await request.get(`${baseURL}/api/utils/queryTilesetTimes`, {
        params: { path: '/Missions/Reference-Mission/Layers/tiles_time_/{z}/{x}/{y}.png', ...times },
      });
      expect(response.status()).toBeLessThan(500);
    });
  });
});
