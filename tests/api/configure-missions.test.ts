import { describe, expect, it } from 'vitest';
import { validateConfig } from '#lib/configure/validate.ts';
import { adminToken, call, uniqueName, userWithSession } from '../helpers.ts';

const post = (path: string, body: unknown, token = adminToken()) =>
  call('POST', `/api/configure/${path}`, { body, token });
const config = (view = [1, 2, 3]) => ({ msv: { mission: 'x', view }, tools: [], layers: [] });

describe('POST /add', () => {
  it('creates a mission from the template when no config is given; 409 when it exists', async () => {
    const mission = uniqueName('Add Me');
    const res = await post('add', { mission });
    expect(res.status).toBe(201);
    // `message`: the established configure app shows it
    expect(res.body).toMatchObject({ status: 'success', mission, version: 1, message: expect.any(String) });
    const cfg = (await call('GET', `/api/configure/get?mission=${encodeURIComponent(mission)}`)).body;
    expect(cfg.msv.mission).toBe(mission);
    // the configure app reads these of every mission (it fails on a mission without them)
    expect(cfg.projection).toMatchObject({ bounds: ['', '', '', ''], origin: ['', ''] });
    expect(cfg.layers).toEqual([]);
    expect(cfg.tools.length).toBeGreaterThan(0);
    expect(validateConfig(cfg).valid).toBe(true);
    const again = await post('add', { mission });
    expect(again.status).toBe(409);
    expect(again.body.message).toContain(mission);
    expect((await call('GET', '/api/configure/missions')).body.missions).toContain(mission);
  });

  it('creates a mission from a given config; invalid → 400 and nothing stored', async () => {
    const mission = uniqueName('add');
    const ok = await post('add', {
      mission,
      config: { ...config(), layers: [{ name: 'L', type: 'tile', url: 'u' }] },
    });
    expect(ok.status).toBe(201);
    expect(ok.body.newlyAddedUUIDs).toEqual([{ name: 'L', uuid: expect.any(String) }]);
    const other = uniqueName('add');
    const bad = await post('add', { mission: other, config: { msv: {} } });
    expect(bad.status).toBe(400);
    expect(bad.body.valid).toBe(false);
    expect((await call('GET', `/api/configure/get?mission=${other}`)).status).toBe(404);
  });

  it.each([['bad/name'], ['x'.repeat(65)], ["a'b"]])('refuses the name %j', async (mission) => {
    expect((await post('add', { mission })).status).toBe(400);
  });

  it('needs an admin', async () => {
    const user = await userWithSession('user');
    const res = await call('POST', '/api/configure/add', {
      body: { mission: uniqueName('a') },
      cookie: user.cookie,
    });
    expect(res.status).toBe(403);
  });

  it('parallel adds of one name: exactly one wins', async () => {
    const mission = uniqueName('race');
    const results = await Promise.all([1, 2, 3, 4].map(() => post('add', { mission })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
  });
});

describe('POST /clone', () => {
  it('copies the latest config as version 1 of the clone, with msv.mission renamed', async () => {
    const from = uniqueName('src');
    await post('upsert', { mission: from, config: config([1, 1, 1]) });
    await post('upsert', { mission: from, config: config([2, 2, 2]) });
    const to = uniqueName('dst');
    const res = await post('clone', { existingMission: from, cloneMission: to });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'success', mission: to, version: 1 });
    const full = (await call('GET', `/api/configure/get?mission=${to}&full=true`)).body;
    expect(full.version).toBe(1);
    expect(full.config).toEqual({ ...config([2, 2, 2]), msv: { mission: to, view: [2, 2, 2] } });
    // The source is untouched.
    expect((await call('GET', `/api/configure/get?mission=${from}`)).body).toEqual(config([2, 2, 2]));
  });

  it.each([
    [
      'an unknown source',
      () => ({ existingMission: uniqueName('none'), cloneMission: uniqueName('c') }),
      404,
    ],
    ['a missing cloneMission', () => ({ existingMission: 'x' }), 400],
    ['an invalid clone name', () => ({ existingMission: 'x', cloneMission: 'no/slash' }), 400],
  ])('%s → %d', async (_label, body, status) => {
    expect((await post('clone', body())).status).toBe(status);
  });

  it('409 when the clone exists', async () => {
    const a = uniqueName('a');
    const b = uniqueName('b');
    await post('upsert', { mission: a, config: config() });
    await post('upsert', { mission: b, config: config() });
    expect((await post('clone', { existingMission: a, cloneMission: b })).status).toBe(409);
  });
});

describe('POST /destroy', () => {
  it('removes every version; unknown → 404', async () => {
    const mission = uniqueName('gone');
    await post('upsert', { mission, config: config() });
    await post('upsert', { mission, config: config([5, 5, 5]) });
    const res = await post('destroy', { mission });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('success');
    expect(res.body.message).toContain(mission);
    expect((await call('GET', `/api/configure/get?mission=${mission}`)).status).toBe(404);
    expect((await call('GET', '/api/configure/missions')).body.missions).not.toContain(mission);
    expect((await post('destroy', { mission })).status).toBe(404);
    // The name can be used again, starting at version 1.
    expect((await post('upsert', { mission, config: config() })).body.version).toBe(1);
  });

  it('needs an admin', async () => {
    expect((await post('destroy', { mission: 'anything' }, '')).status).toBe(401);
  });
});
