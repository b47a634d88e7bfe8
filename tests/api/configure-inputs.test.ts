import { describe, expect, it } from 'vitest';
import { adminToken, call, uniqueName } from '../helpers.ts';

/**
 * The configure endpoints' declared bounds (docs/configure.md, "Inputs"): at the bound the request is
 * served, past it a 400 names the field and nothing is stored.
 */
const U = (n: number) => `bbbbbbbb-0000-4000-8000-${String(n).padStart(12, '0')}`;
const config = (layers: unknown[] = []) => ({ msv: { view: [10, 20, 3] }, tools: [], layers });
const tile = (name: string, uuid?: string) => ({ name, type: 'tile', url: 'u', ...(uuid ? { uuid } : {}) });
const post = (path: string, body: unknown) =>
  call('POST', `/api/configure/${path}`, { body, token: adminToken() });
const version = async (mission: string) =>
  (await call('GET', `/api/configure/get?mission=${mission}&full=true`, { token: adminToken() })).body
    .version;

async function newMission(): Promise<string> {
  const mission = uniqueName('inp');
  expect((await post('upsert', { mission, config: config([tile('A', U(1)), tile('B', U(2))]) })).status).toBe(
    200,
  );
  return mission;
}

async function refused(path: string, body: Record<string, unknown>, field: string, mission: string) {
  const res = await post(path, { mission, ...body });
  expect(res.status).toBe(400);
  expect(res.body.status).toBe('failure');
  expect(res.body.message).toContain(`'${field}'`);
  expect(await version(mission)).toBe(1);
}

describe('configure inputs: bounds and types, 400 naming the field', () => {
  it('upsert: id ≤ 64 characters, config ≤ 256 keys and ≤ 10000 layers (also as JSON text), version a 32-bit integer', async () => {
    const mission = await newMission();
    await refused('upsert', { config: config(), id: 'i'.repeat(65) }, 'id', mission);
    await refused('upsert', { config: config(), id: { a: 1 } }, 'id', mission);
    const wide = { ...config(), ...Object.fromEntries(Array.from({ length: 254 }, (_, i) => [`k${i}`, i])) };
    await refused('upsert', { config: wide }, 'config', mission);
    await refused('upsert', { config: JSON.stringify(wide) }, 'config', mission);
    const many = config(Array.from({ length: 10_001 }, () => ({})));
    await refused('upsert', { config: many }, 'config.layers', mission);
    await refused('upsert', { config: JSON.stringify(many) }, 'config.layers', mission);
    await refused('upsert', { version: 2147483648 }, 'version', mission);
    await refused('upsert', { version: 0, config: config() }, 'version', mission);
    await refused('upsert', { forceClientUpdate: 'yes', config: config() }, 'forceClientUpdate', mission);
    // At the bounds: 64-character id, 256 keys.
    const atBound = {
      ...config(),
      ...Object.fromEntries(Array.from({ length: 253 }, (_, i) => [`k${i}`, i])),
    };
    const ok = await post('upsert', { mission, config: atBound, id: 'i'.repeat(64) });
    expect(ok.status).toBe(200);
    expect(ok.body.version).toBe(2);
    const missing = await post('upsert', { mission, version: 2147483647 });
    expect(missing.status).toBe(404);
  });

  it('upsert without config or version names config', async () => {
    const mission = await newMission();
    await refused('upsert', {}, 'config', mission);
    await refused('upsert', { version: null }, 'config', mission);
  });

  it('addLayer: at most 1000 layers, names ≤ 1024 characters, placement path ≤ 4096, index an integer', async () => {
    const mission = await newMission();
    await refused(
      'addLayer',
      { layer: Array.from({ length: 1001 }, (_, i) => tile(`L${i}`)) },
      'layer',
      mission,
    );
    await refused('addLayer', { layer: tile('n'.repeat(1025)) }, 'layer.name', mission);
    await refused('addLayer', { layer: JSON.stringify(tile('n'.repeat(1025))) }, 'layer.name', mission);
    await refused('addLayer', { layer: [tile('ok'), 5] }, 'layer.1', mission);
    await refused(
      'addLayer',
      { layer: tile('X'), placement: { path: 'p'.repeat(4097) } },
      'placement.path',
      mission,
    );
    // Not an integer: refused, naming the field.
    await refused('addLayer', { layer: tile('X'), placement: { index: 1.5 } }, 'placement.index', mission);
    await refused(
      'addLayer',
      { layer: tile('X'), placement: { index: 'first' } },
      'placement.index',
      mission,
    );
    await refused('addLayer', { layer: tile('X'), placement: { index: true } }, 'placement.index', mission);
    const ok = await post('addLayer', {
      mission,
      layer: [tile('n'.repeat(1024)), tile('Y')],
      placement: { index: -(2 ** 31) },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.newlyAddedUUIDs).toHaveLength(2);
  });

  it('addLayer and updateLayer fit an out-of-range integer index (1e308, -1e308, 2^63) to the nearest end', async () => {
    const mission = await newMission();
    const names = async () => {
      const res = await call('GET', `/api/configure/get?mission=${mission}`, { token: adminToken() });
      return (res.body.layers as { name: string }[]).map((l) => l.name);
    };
    const before = await names();
    const last = await post('addLayer', { mission, layer: tile('Last'), placement: { index: 1e308 } });
    expect(last.status, JSON.stringify(last.body)).toBe(200);
    const first = await post('addLayer', { mission, layer: tile('First'), placement: { index: -1e308 } });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    // As JSON text, with the exponent and a value past 2^53 as sent by a client.
    const big = await call('POST', '/api/configure/addLayer', {
      body: `{"mission":"${mission}","layer":{"name":"Big","type":"tile","url":"x"},"placement":{"index":9223372036854775808}}`,
      headers: { 'content-type': 'application/json' },
      token: adminToken(),
    });
    expect(big.status, JSON.stringify(big.body)).toBe(200);
    expect(await names()).toEqual(['First', ...before, 'Last', 'Big']);
    const uuid = first.body.newlyAddedUUIDs[0].uuid;
    const moved = await post('updateLayer', {
      mission,
      layerUUID: uuid,
      layer: {},
      placement: { index: 1e308 },
    });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect((await names()).at(-1)).toBe('First');
  });

  it('updateLayer: layerUUID 1 to 256 characters, layer an object (or its JSON text)', async () => {
    const mission = await newMission();
    await refused('updateLayer', { layerUUID: '', layer: {} }, 'layerUUID', mission);
    await refused('updateLayer', { layerUUID: 'u'.repeat(257), layer: {} }, 'layerUUID', mission);
    await refused('updateLayer', { layerUUID: U(1), layer: [] }, 'layer', mission);
    await refused('updateLayer', { layerUUID: U(1), layer: '{"name": 5' }, 'layer', mission);
    const unknown = await post('updateLayer', { mission, layerUUID: 'u'.repeat(256), layer: {} });
    expect(unknown.status).toBe(404);
    const ok = await post('updateLayer', { mission, layerUUID: U(1), layer: '{"name":"A2"}' });
    expect(ok.status).toBe(200);
  });

  it('removeLayer: one uuid or 1 to 1000; a uuid listed twice is removed once', async () => {
    const mission = await newMission();
    await refused('removeLayer', { layerUUID: [] }, 'layerUUID', mission);
    await refused(
      'removeLayer',
      { layerUUID: Array.from({ length: 1001 }, () => U(1)) },
      'layerUUID',
      mission,
    );
    await refused('removeLayer', { layerUUID: [U(1), 7] }, 'layerUUID.1', mission);
    const ok = await post('removeLayer', { mission, layerUUID: [U(1), U(1), U(2)] });
    expect(ok.status).toBe(200);
    expect(ok.body.removedUUIDs.map((r: { uuid: string }) => r.uuid)).toEqual([U(1), U(2)]);
  });

  it('updateInitialView: zoom 0 to 40, latitude ±90, longitude ±360, numbers in JSON', async () => {
    const mission = await newMission();
    await refused('updateInitialView', { zoom: 40.5 }, 'zoom', mission);
    await refused('updateInitialView', { latitude: 90.1 }, 'latitude', mission);
    await refused('updateInitialView', { longitude: '20' }, 'longitude', mission);
    const ok = await post('updateInitialView', { mission, zoom: 40 });
    expect(ok.status).toBe(200);
    expect(ok.body.version).toBe(2);
  });

  it('get, versions, clone, export and add name the mission field they refuse', async () => {
    const mission = await newMission();
    const long = 'm'.repeat(65);
    const get = await call('GET', `/api/configure/get?mission=${long}`);
    expect(get.status).toBe(400);
    expect(get.body.message).toContain("'mission'");
    const v0 = await call('GET', `/api/configure/get?mission=${mission}&version=0`, { token: adminToken() });
    expect(v0.status).toBe(400);
    expect(v0.body.message).toContain("'version'");
    const versions = await call('GET', `/api/configure/versions?mission=a.b`, { token: adminToken() });
    expect(versions.status).toBe(400);
    expect(versions.body.message).toContain("'mission'");
    const clone = await post('clone', { existingMission: mission, cloneMission: long });
    expect(clone.status).toBe(400);
    expect(clone.body.message).toContain("'cloneMission'");
    const exp = await call('GET', `/api/configure/export?mission=${mission},a.b`);
    expect(exp.status).toBe(400);
    expect(exp.body.message).toContain("'mission'");
    const add = await post('add', { mission: uniqueName('inp'), config: [] });
    expect(add.status).toBe(400);
    expect(add.body.message).toContain("'config'");
    expect(await version(mission)).toBe(1);
  });
});
