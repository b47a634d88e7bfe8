/** MMGIS's `NASA-AMMOS/MMGIS/tests/e2e/api/config.spec.js`, ported (README.md). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiUrl } from '../helpers.ts';
import { ensureReferenceMission } from './missions.ts';
import { callers, newRequestContext as contextAt } from './playwright.ts';

describe.each(callers)('Config API ($caller)', ({ caller, session }) => {
  const baseURL = apiUrl();
  let cookie = '';
  beforeAll(async () => {
    await ensureReferenceMission();
    cookie = await session();
  });
  const newRequestContext = (base: string) => contextAt(base, cookie);
  const testMissionsCreated: string[] = [];
  const forget = (mission: string) => {
    const idx = testMissionsCreated.indexOf(mission);
    if (idx > -1) testMissionsCreated.splice(idx, 1);
  };

  it('GET /api/configure/missions returns mission list', async () => {
    const response = await newRequestContext(baseURL).get(`${baseURL}/api/configure/missions`);
    expect(response.ok()).toBeTruthy();
    const data = await response.json();
    expect(data.status).toBe('success');
    expect(Array.isArray(data.missions)).toBeTruthy();
    expect(data.missions).toContain('Reference-Mission');
  });

  it('POST /api/configure/add creates a new mission', async (ctx) => {
    const request = newRequestContext(baseURL);
    const testMission = `TestMission-${Date.now()}`;
    const addRes = await request.post(`${baseURL}/api/configure/add`, { data: { mission: testMission } });
    expect(addRes.status()).toBeLessThan(500);
    const addBody = await addRes.json();
    ctx.skip(addBody.status !== 'success', 'Config add requires SuperAdmin');
    expect(addBody.mission).toBe(testMission);
    expect(addBody).toHaveProperty('version');
    testMissionsCreated.push(testMission);
    const listBody = await (await request.get(`${baseURL}/api/configure/missions`)).json();
    expect(listBody.missions).toContain(testMission);
    const destroyRes = await request.post(`${baseURL}/api/configure/destroy`, {
      data: { mission: testMission },
    });
    expect(destroyRes.status()).toBeLessThan(500);
    forget(testMission);
  });

  it('POST /api/configure/upsert updates mission config', async (ctx) => {
    const request = newRequestContext(baseURL);
    const testMission = `UpsertMission-${Date.now()}`;
    const addBody = await (
      await request.post(`${baseURL}/api/configure/add`, { data: { mission: testMission } })
    ).json();
    ctx.skip(addBody.status !== 'success', 'Config add requires SuperAdmin');
    testMissionsCreated.push(testMission);
    const getRes = await request.get(
      `${baseURL}/api/configure/get?mission=${encodeURIComponent(testMission)}&full=true`,
    );
    expect(getRes.ok()).toBeTruthy();
    const getBody = await getRes.json();
    expect(getBody.status).toBe('success');
    const updatedConfig = getBody.config;
    updatedConfig.msv.look = { lat: 10, lng: 20, zoom: 5 };
    const upsertRes = await request.post(`${baseURL}/api/configure/upsert`, {
      data: { mission: testMission, config: updatedConfig },
    });
    expect(upsertRes.status()).toBeLessThan(500);
    const upsertBody = await upsertRes.json();
    expect(upsertBody.status).toBe('success');
    expect(upsertBody.version).toBeGreaterThan(addBody.version);
    const verifyBody = await (
      await request.get(`${baseURL}/api/configure/get?mission=${encodeURIComponent(testMission)}&full=true`)
    ).json();
    expect(verifyBody.status).toBe('success');
    expect(verifyBody.config.msv.look.lat).toBe(10);
    await request.post(`${baseURL}/api/configure/destroy`, { data: { mission: testMission } });
    forget(testMission);
  });

  it('POST /api/configure/destroy deletes a mission', async (ctx) => {
    const request = newRequestContext(baseURL);
    const testMission = `DestroyMission-${Date.now()}`;
    const addBody = await (
      await request.post(`${baseURL}/api/configure/add`, { data: { mission: testMission } })
    ).json();
    ctx.skip(addBody.status !== 'success', 'Config add requires SuperAdmin');
    const destroyRes = await request.post(`${baseURL}/api/configure/destroy`, {
      data: { mission: testMission },
    });
    expect(destroyRes.status()).toBeLessThan(500);
    const destroyBody = await destroyRes.json();
    expect(destroyBody.status).toBe('success');
    const listBody = await (await request.get(`${baseURL}/api/configure/missions`)).json();
    expect(listBody.missions).not.toContain(testMission);
  });

  it('POST /api/configure/add rejects duplicate mission name', async (ctx) => {
    const request = newRequestContext(baseURL);
    const testMission = `DupMission-${Date.now()}`;
    const firstBody = await (
      await request.post(`${baseURL}/api/configure/add`, { data: { mission: testMission } })
    ).json();
    ctx.skip(firstBody.status !== 'success', 'Config add requires SuperAdmin');
    testMissionsCreated.push(testMission);
    const second = await request.post(`${baseURL}/api/configure/add`, { data: { mission: testMission } });
    expect(second.status()).toBeLessThan(500);
    const secondBody = await second.json();
    expect(secondBody.status).toBe('failure');
    expect(secondBody.message).toMatch(/already exists/i);
    await request.post(`${baseURL}/api/configure/destroy`, { data: { mission: testMission } });
    forget(testMission);
  });

  it('rejects non-admin config changes', async (ctx) => {
    ctx.skip(process.env.AUTH === 'off', 'Requires AUTH != off to test authorization');
    // The spec sends no credentials here; with the administrator's session there is nothing to refuse.
    ctx.skip(caller !== 'anonymous', 'needs a caller without credentials');
    const response = await newRequestContext(baseURL).post(`${baseURL}/api/configure/add`, {
      data: { mission: 'UnauthorizedMission' },
    });
    expect(response.status()).toBeLessThan(500);
    const body = await response.json();
    expect(body.status).toBe('failure');
  });

  afterAll(async () => {
    const request = newRequestContext(baseURL);
    for (const mission of testMissionsCreated) {
      try {
        await request.post(`${baseURL}/api/configure/destroy`, { data: { mission } });
      } catch {
        // best effort, as the spec
      }
    }
  });
});
