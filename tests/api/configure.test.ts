import { describe, expect, it } from 'vitest';
import { adminToken, apiUrlLocal, call, uniqueName, userWithSession } from '../helpers.ts';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function config(layers: unknown[] = [], view: unknown[] = [10, 20, 3]) {
  return { msv: { view }, tools: [{ name: 'Layers' }], layers };
}

const upsert = (body: unknown, token = adminToken()) =>
  call('POST', '/api/configure/upsert', { body, token });

async function newMission(layers: unknown[] = []): Promise<string> {
  const mission = uniqueName('cfg');
  const res = await upsert({ mission, config: config(layers) });
  expect(res.status).toBe(200);
  return mission;
}

describe('POST /upsert', () => {
  it('creates a mission at version 1, then adds versions; uuids assigned only where missing', async () => {
    const mission = uniqueName('up');
    const given = '3f1b2c4d-1111-4222-8333-444455556666';
    const first = await upsert({
      mission,
      config: config([
        { name: 'A', type: 'tile', url: 'a/{z}/{x}/{y}.png' },
        { name: 'H', type: 'header', sublayers: [{ name: 'B', type: 'tile', url: 'b', uuid: given }] },
      ]),
    });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ status: 'success', mission, version: 1 });
    expect(first.body.newlyAddedUUIDs.map((n: any) => n.name)).toEqual(['A', 'H']);
    for (const n of first.body.newlyAddedUUIDs) expect(n.uuid).toMatch(UUID_V4);

    const got = await call('GET', `/api/configure/get?mission=${mission}`);
    expect(got.status).toBe(200);
    // Bare config: exactly what was sent plus the assigned uuids.
    expect(got.body).toEqual(
      config([
        { name: 'A', type: 'tile', url: 'a/{z}/{x}/{y}.png', uuid: first.body.newlyAddedUUIDs[0].uuid },
        {
          name: 'H',
          type: 'header',
          uuid: first.body.newlyAddedUUIDs[1].uuid,
          sublayers: [{ name: 'B', type: 'tile', url: 'b', uuid: given }],
        },
      ]),
    );

    const second = await upsert({ mission, config: config([], [1, 2, 3]) });
    expect(second.body).toEqual({ status: 'success', mission, version: 2, newlyAddedUUIDs: [] });
  });

  it('accepts a config sent as a JSON string', async () => {
    const mission = uniqueName('up');
    const res = await upsert({ mission, config: JSON.stringify(config()) });
    expect(res.status).toBe(200);
    expect((await call('GET', `/api/configure/get?mission=${mission}`)).body).toEqual(config());
  });

  it('rolls back: version wins over config and is stored as a new version', async () => {
    const mission = await newMission();
    await upsert({ mission, config: config([], [5, 5, 5]) });
    const back = await upsert({ mission, version: 1, config: config([], [9, 9, 9]) });
    expect(back.body).toMatchObject({ status: 'success', mission, version: 3 });
    const full = await call('GET', `/api/configure/get?mission=${mission}&full=true`);
    expect(full.body).toMatchObject({ status: 'success', mission, version: 3, config: config() });
    expect(full.body.createdAt).toMatch(ISO_MS);
    const missing = await upsert({ mission, version: 42 });
    expect(missing.status).toBe(404);
    expect(missing.body.message).toContain('42');
  });

  it('refuses an invalid config with the validation result and stores nothing', async () => {
    const mission = await newMission();
    const res = await upsert({ mission, config: { msv: {}, layers: [{ name: '', type: 'tile' }] } });
    expect(res.status).toBe(400);
    expect(res.body.status).toBe('failure');
    expect(res.body.valid).toBe(false);
    expect(res.body.message).toMatch(/not valid/);
    const fields = res.body.errors.flatMap((e: any) => e.invalidFields);
    expect(fields).toEqual(expect.arrayContaining(['tools', 'layers[0].name', 'layers[0].url']));
    for (const e of res.body.errors) expect(e.type).toBe('error');
    const versions = await call('GET', `/api/configure/versions?mission=${mission}`, { token: adminToken() });
    expect(versions.body.versions.map((v: any) => v.version)).toEqual([1]);
  });

  it.each([
    ['a non-object config', { config: 42 }, 400],
    ['an array config', { config: [] }, 400],
    ['a config that is a non-JSON string', { config: '{not json' }, 400],
    ['neither config nor version', {}, 400],
    ['a fractional version', { version: 1.5 }, 400],
    ['a version below 1', { version: 0 }, 400],
    ['a version as text', { version: 'one' }, 400],
  ])('%s → 4xx, nothing stored', async (_label, extra, status) => {
    const mission = uniqueName('bad');
    const res = await upsert({ mission, ...extra });
    expect(res.status).toBe(status);
    expect(res.body.status).toBe('failure');
    expect(typeof res.body.message).toBe('string');
    expect((await call('GET', `/api/configure/get?mission=${mission}`)).status).toBe(404);
  });

  it.each([
    ["'; drop table configs; --"],
    ['a'.repeat(65)],
    [''],
    ['dots.not.allowed'],
    ['slash/no'],
    ['ünïcode'],
  ])('refuses the mission name %j with 400', async (mission) => {
    const res = await upsert({ mission, config: config() });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/mission/);
  });

  it('accepts names with spaces, _ and - up to 64 characters', async () => {
    const mission = `${uniqueName('Mars 2020')}-x`.padEnd(64, '_');
    expect((await upsert({ mission, config: config() })).status).toBe(200);
    const got = await call('GET', `/api/configure/get?mission=${encodeURIComponent(mission)}`);
    expect(got.status).toBe(200);
  });

  it('needs an admin: 401 anonymous, 403 for a user, ok for an admin session', async () => {
    const mission = uniqueName('auth');
    const anon = await call('POST', '/api/configure/upsert', { body: { mission, config: config() } });
    expect(anon.status).toBe(401);
    const user = await userWithSession('user');
    const asUser = await call('POST', '/api/configure/upsert', {
      body: { mission, config: config() },
      cookie: user.cookie,
    });
    expect(asUser.status).toBe(403);
    const admin = await userWithSession('admin');
    const asAdmin = await call('POST', '/api/configure/upsert', {
      body: { mission, config: config() },
      cookie: admin.cookie,
    });
    expect(asAdmin.status).toBe(200);
  });
});

describe('GET /get and /versions', () => {
  it('answers 404 for an unknown mission and 400 without mission', async () => {
    const unknown = await call('GET', `/api/configure/get?mission=${uniqueName('none')}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.status).toBe('failure');
    expect((await call('GET', '/api/configure/get')).status).toBe(400);
  });

  it('serves a specific version to admins only (401 anonymous, 403 non-admin)', async () => {
    const mission = await newMission();
    await upsert({ mission, config: config([], [7, 7, 7]) });
    const anon = await call('GET', `/api/configure/get?mission=${mission}&version=1`);
    expect(anon.status).toBe(401);
    const user = await userWithSession('user', [mission]);
    const asUser = await call('GET', `/api/configure/get?mission=${mission}&version=1`, {
      cookie: user.cookie,
    });
    expect(asUser.status).toBe(403);
    const v1 = await call('GET', `/api/configure/get?mission=${mission}&version=1`, { token: adminToken() });
    expect(v1.body).toEqual(config());
    const v1full = await call('GET', `/api/configure/get?mission=${mission}&version=1&full=true`, {
      token: adminToken(),
    });
    expect(v1full.body).toMatchObject({ status: 'success', mission, version: 1, config: config() });
    const latest = await call('GET', `/api/configure/get?mission=${mission}`);
    expect(latest.body).toEqual(config([], [7, 7, 7]));
    const none = await call('GET', `/api/configure/get?mission=${mission}&version=9`, {
      token: adminToken(),
    });
    expect(none.status).toBe(404);
  });

  it('lists versions ascending with ISO timestamps (admin only)', async () => {
    const mission = await newMission();
    await upsert({ mission, config: config([], [1, 1, 1]) });
    await upsert({ mission, config: config([], [2, 2, 2]) });
    const res = await call('GET', `/api/configure/versions?mission=${mission}`, { token: adminToken() });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('success');
    expect(res.body.mission).toBe(mission);
    expect(res.body.versions.map((v: any) => v.version)).toEqual([1, 2, 3]);
    for (const v of res.body.versions) expect(v.createdAt).toMatch(ISO_MS);
    const times = res.body.versions.map((v: any) => Date.parse(v.createdAt));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    expect((await call('GET', `/api/configure/versions?mission=${mission}`)).status).toBe(401);
    const unknown = await call('GET', `/api/configure/versions?mission=${uniqueName('x')}`, {
      token: adminToken(),
    });
    expect(unknown.status).toBe(404);
  });

  it('lists the mission in /missions, sorted', async () => {
    const mission = await newMission();
    const res = await call('GET', '/api/configure/missions');
    expect(res.body.missions).toContain(mission);
    const sorted = [...res.body.missions].sort((a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0));
    expect(res.body.missions).toEqual(sorted);
  });
});

describe('POST /validate', () => {
  it('answers valid with warnings (unknown geodataset) and stores nothing', async () => {
    const missing = uniqueName('nods');
    const res = await call('POST', '/api/configure/validate', {
      token: adminToken(),
      body: { config: config([{ name: 'v', type: 'vector', url: `geodatasets:${missing}` }]) },
    });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('success');
    expect(res.body.valid).toBe(true);
    expect(res.body.warnings).toEqual([
      expect.objectContaining({ type: 'warning', invalidFields: ['layers[0].url'] }),
    ]);
    expect(res.body.warnings[0].reason).toContain(missing);
  });

  it('answers HTTP 200 with valid:false and the errors', async () => {
    const res = await call('POST', '/api/configure/validate', {
      token: adminToken(),
      body: { config: config([{ name: 'q', type: 'query' }]) },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'failure', valid: false });
    expect(res.body.errors).toEqual([
      {
        type: 'error',
        reason: expect.stringContaining('query.endpoint'),
        invalidFields: ['layers[0].query.endpoint'],
      },
    ]);
  });

  it('treats a missing or non-object config as invalid, a non-JSON string as 400, and needs an admin', async () => {
    const none = await call('POST', '/api/configure/validate', { token: adminToken(), body: {} });
    expect(none.body.valid).toBe(false);
    const bad = await call('POST', '/api/configure/validate', {
      token: adminToken(),
      body: { config: '{x' },
    });
    expect(bad.status).toBe(400);
    expect((await call('POST', '/api/configure/validate', { body: { config: config() } })).status).toBe(401);
  });
});

describe('GET /export', () => {
  it('exports the latest version of the named missions; unknown names are 404', async () => {
    const a = await newMission();
    const b = await newMission();
    await upsert({ mission: b, config: config([], [4, 4, 4]) });
    const res = await call('GET', `/api/configure/export?mission=${b},${a}`);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('success');
    const byName = Object.fromEntries(res.body.missions.map((m: any) => [m.mission, m]));
    expect(Object.keys(byName).sort()).toEqual([a, b].sort());
    expect(byName[b]).toMatchObject({ mission: b, version: 2, config: config([], [4, 4, 4]) });
    expect(byName[a].createdAt).toMatch(ISO_MS);
    const unknown = uniqueName('nope');
    const missing = await call('GET', `/api/configure/export?mission=${a},${unknown}`);
    expect(missing.status).toBe(404);
    expect(missing.body.message).toContain(unknown);
    expect(missing.body.message).not.toContain(a);
  });

  it('exports every mission without a filter', async () => {
    const a = await newMission();
    const res = await call('GET', '/api/configure/export');
    expect(res.body.missions.map((m: any) => m.mission)).toContain(a);
  });

  it('under AUTH=local needs a login and shows only viewable missions', async () => {
    const seen = await newMission();
    const hidden = await newMission();
    const base = apiUrlLocal();
    expect((await call('GET', '/api/configure/export', { base })).status).toBe(401);
    const user = await userWithSession('user', [seen], base);
    const all = await call('GET', '/api/configure/export', { base, cookie: user.cookie });
    expect(all.status).toBe(200);
    expect(all.body.missions.map((m: any) => m.mission)).toEqual([seen]);
    const named = await call('GET', `/api/configure/export?mission=${hidden}`, { base, cookie: user.cookie });
    expect(named.status).toBe(404);
    const admin = await call('GET', `/api/configure/export?mission=${seen},${hidden}`, {
      base,
      token: adminToken(),
    });
    expect(admin.body.missions.map((m: any) => m.mission).sort()).toEqual([seen, hidden].sort());
    // Latest config is public under AUTH=local too (docs/auth.md).
    expect((await call('GET', `/api/configure/get?mission=${hidden}`, { base })).status).toBe(200);
  });
});
