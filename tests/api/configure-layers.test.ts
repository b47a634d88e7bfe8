import { describe, expect, it } from 'vitest';
import { adminToken, call, uniqueName, userWithSession } from '../helpers.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const U = (n: number) => `aaaaaaaa-0000-4000-8000-${String(n).padStart(12, '0')}`;

function config(layers: unknown[] = []) {
  return { msv: { view: [10, 20, 3] }, tools: [], layers };
}

/** A (tile), H1 (header: B, Inner (header: C)), E (tile) */
const tree = () => [
  { name: 'A', type: 'tile', url: 'a', uuid: U(1) },
  {
    name: 'H1',
    type: 'header',
    uuid: U(2),
    sublayers: [
      { name: 'B', type: 'tile', url: 'b', uuid: U(3) },
      {
        name: 'Inner',
        type: 'header',
        uuid: U(4),
        sublayers: [{ name: 'C', type: 'tile', url: 'c', uuid: U(5) }],
      },
    ],
  },
  { name: 'E', type: 'tile', url: 'e', uuid: U(6) },
];

const post = (path: string, body: unknown, token: string | undefined = adminToken()) =>
  call('POST', `/api/configure/${path}`, { body, token });

async function newMission(layers: unknown[] = tree()): Promise<string> {
  const mission = uniqueName('lay');
  expect((await post('upsert', { mission, config: config(layers) })).status).toBe(200);
  return mission;
}

const latest = async (mission: string) => (await call('GET', `/api/configure/get?mission=${mission}`)).body;
const version = async (mission: string) =>
  (await call('GET', `/api/configure/get?mission=${mission}&full=true`)).body.version;

/** Names as a nested outline: headers become {name: [children]}. */
const outline = (layers: any[]): any[] =>
  layers.map((l) => (l.type === 'header' ? { [l.name]: outline(l.sublayers ?? []) } : l.name));

describe('POST /addLayer', () => {
  it('adds at the end of the top level by default and assigns a uuid', async () => {
    const mission = await newMission();
    const res = await post('addLayer', { mission, layer: { name: 'X', type: 'tile', url: 'x' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'success', mission, version: 2 });
    expect(res.body.newlyAddedUUIDs).toEqual([{ name: 'X', uuid: expect.any(String) }]);
    const cfg = await latest(mission);
    expect(outline(cfg.layers)).toEqual(['A', { H1: ['B', { Inner: ['C'] }] }, 'E', 'X']);
    expect(cfg.layers[3]).toEqual({
      name: 'X',
      type: 'tile',
      url: 'x',
      uuid: res.body.newlyAddedUUIDs[0].uuid,
    });
  });

  it('adds an ordered array into a nested header at an index', async () => {
    const mission = await newMission();
    const res = await post('addLayer', {
      mission,
      layer: [
        { name: 'X', type: 'tile', url: 'x' },
        { name: 'Y', type: 'tile', url: 'y', uuid: U(50) },
      ],
      placement: { path: 'H1.Inner', index: 0 },
    });
    expect(res.status).toBe(200);
    expect(res.body.newlyAddedUUIDs.map((n: any) => n.name)).toEqual(['X']);
    expect(outline((await latest(mission)).layers)).toEqual([
      'A',
      { H1: ['B', { Inner: ['X', 'Y', 'C'] }] },
      'E',
    ]);
  });

  it.each([
    [{ path: '', index: 99 }, ['A', { H1: ['B', { Inner: ['C'] }] }, 'E', 'X']],
    [{ path: '', index: -4 }, ['X', 'A', { H1: ['B', { Inner: ['C'] }] }, 'E']],
    [{ path: '1', index: 1 }, ['A', { H1: ['B', 'X', { Inner: ['C'] }] }, 'E']],
    [{ path: 'H1.1' }, ['A', { H1: ['B', { Inner: ['C', 'X'] }] }, 'E']],
  ])('placement %j', async (placement, expected) => {
    const mission = await newMission();
    const res = await post('addLayer', { mission, layer: { name: 'X', type: 'tile', url: 'x' }, placement });
    expect(res.status).toBe(200);
    expect(outline((await latest(mission)).layers)).toEqual(expected);
  });

  it.each([
    [
      'a path not found',
      { layer: { name: 'X', type: 'tile', url: 'x' }, placement: { path: 'Nope' } },
      400,
      'Nope',
    ],
    [
      'a path into a non-header',
      { layer: { name: 'X', type: 'tile', url: 'x' }, placement: { path: 'H1.B' } },
      400,
      'not a header',
    ],
    [
      'an index that is not an integer',
      { layer: { name: 'X', type: 'tile', url: 'x' }, placement: { index: 1.5 } },
      400,
      'placement.index',
    ],
    [
      'a placement that is not an object',
      { layer: { name: 'X', type: 'tile', url: 'x' }, placement: 'H1' },
      400,
      'placement',
    ],
    ['an invalid layer (no url)', { layer: { name: 'X', type: 'tile' } }, 400, 'url'],
    ['a layer with an unknown type', { layer: { name: 'X', type: 'nope', url: 'x' } }, 400, 'type'],
    ['a layer with an empty name', { layer: { name: '', type: 'tile', url: 'x' } }, 400, 'name'],
    ['a duplicate uuid', { layer: { name: 'X', type: 'tile', url: 'x', uuid: U(3) } }, 400, U(3)],
    ['an empty layer array', { layer: [] }, 400, 'layer'],
    ['a layer that is a number', { layer: 5 }, 400, 'layer'],
    ['a layer that is a non-JSON string', { layer: 'not json' }, 400, 'layer'],
    ['a missing layer', {}, 400, 'layer'],
  ])('%s → %d, nothing stored', async (_label, body, status, message) => {
    const mission = await newMission();
    const res = await post('addLayer', { mission, ...body });
    expect(res.status).toBe(status);
    expect(res.body.status).toBe('failure');
    expect(res.body.message).toContain(message);
    expect(await version(mission)).toBe(1);
  });

  it('stores injection-looking text verbatim as data and treats it as a name in paths', async () => {
    const mission = await newMission();
    const evil = "x'); drop table configs; --";
    const res = await post('addLayer', { mission, layer: { name: evil, type: 'header', sublayers: [] } });
    expect(res.status).toBe(200);
    const path = await post('addLayer', {
      mission,
      layer: { name: 'in', type: 'tile', url: 'u' },
      placement: { path: "H1' or '1'='1" },
    });
    expect(path.status).toBe(400);
    expect((await latest(mission)).layers[3]).toMatchObject({ name: evil, type: 'header' });
    expect((await call('GET', '/api/configure/missions')).body.missions).toContain(mission);
  });

  it('refuses a layer nested 5000 levels deep with 400, not 500', async () => {
    const mission = await newMission();
    const deep = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
    const text = `{"mission":"${mission}","layer":{"name":"X","type":"tile","url":"x","deep":${deep}}}`;
    const res = await call('POST', '/api/configure/addLayer', { body: text, token: adminToken() });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('nested deeper');
    const upd = `{"mission":"${mission}","layerUUID":"${U(1)}","layer":{"deep":${deep}}}`;
    expect(
      (await call('POST', '/api/configure/updateLayer', { body: upd, token: adminToken() })).status,
    ).toBe(400);
    const ups = `{"mission":"${mission}","config":{"msv":{},"tools":[],"layers":[],"deep":${deep}}}`;
    expect((await call('POST', '/api/configure/upsert', { body: ups, token: adminToken() })).status).toBe(
      400,
    );
    expect(await version(mission)).toBe(1);
  });

  it('404 for an unknown mission, 401/403 without an admin', async () => {
    const layer = { name: 'X', type: 'tile', url: 'x' };
    const unknown = await post('addLayer', { mission: uniqueName('none'), layer });
    expect(unknown.status).toBe(404);
    const mission = await newMission();
    expect((await post('addLayer', { mission, layer }, '')).status).toBe(401);
    const user = await userWithSession('user', [mission]);
    const asUser = await call('POST', '/api/configure/addLayer', {
      body: { mission, layer },
      cookie: user.cookie,
    });
    expect(asUser.status).toBe(403);
    expect(await version(mission)).toBe(1);
  });

  it('two parallel addLayer calls give two versions with both layers in the latest', async () => {
    const mission = await newMission();
    const names = Array.from({ length: 6 }, (_, i) => `P${i}`);
    const results = await Promise.all(
      names.map((name) => post('addLayer', { mission, layer: { name, type: 'tile', url: name } })),
    );
    for (const r of results) expect(r.status).toBe(200);
    expect(results.map((r) => r.body.version).sort((a, b) => a - b)).toEqual([2, 3, 4, 5, 6, 7]);
    const cfg = await latest(mission);
    expect(
      cfg.layers
        .map((l: any) => l.name)
        .slice(3)
        .sort(),
    ).toEqual(names);
    const versions = await call('GET', `/api/configure/versions?mission=${mission}`, { token: adminToken() });
    expect(versions.body.versions.map((v: any) => v.version)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });
});

describe('layers the configure app adds (a numeric placeholder uuid)', () => {
  it('upsert and addLayer replace a uuid that is not a UUID string, and list what they replaced', async () => {
    const mission = await newMission();
    const cfg = await latest(mission);
    // The layer editor's "Add New Layer": a header with the uuid 1, edited into a tile, saved whole.
    cfg.layers.unshift({ name: 'New Layer', uuid: 1, type: 'tile', url: 'n' });
    const saved = await post('upsert', { mission, config: cfg });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(saved.body.newlyAddedUUIDs).toEqual([
      { name: 'New Layer', uuid: expect.stringMatching(UUID), replacesBadUUID: 1 },
    ]);
    const after = await latest(mission);
    expect(after.layers[0]).toEqual({
      name: 'New Layer',
      uuid: saved.body.newlyAddedUUIDs[0].uuid,
      type: 'tile',
      url: 'n',
    });
    expect(after.layers.slice(1)).toEqual(tree());

    const added = await post('addLayer', {
      mission,
      layer: { name: 'Typed', uuid: 'mine', type: 'tile', url: 't' },
    });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    expect(added.body.newlyAddedUUIDs).toEqual([
      { name: 'Typed', uuid: expect.stringMatching(UUID), replacesBadUUID: 'mine' },
    ]);
    expect((await latest(mission)).layers.at(-1).uuid).toBe(added.body.newlyAddedUUIDs[0].uuid);
  });

  it('versions rows name their mission, so the versions table can set, preview and download one', async () => {
    const mission = await newMission();
    expect((await post('addLayer', { mission, layer: { name: 'Z', type: 'tile', url: 'z' } })).status).toBe(
      200,
    );
    const versions = await call('GET', `/api/configure/versions?mission=${mission}`, { token: adminToken() });
    expect(versions.body.versions).toEqual([
      { mission, version: 1, createdAt: expect.any(String) },
      { mission, version: 2, createdAt: expect.any(String) },
    ]);
    const row = versions.body.versions[0];
    const set = await post('upsert', { mission: row.mission, version: row.version });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.version).toBe(3);
    expect((await latest(mission)).layers).toEqual(tree());
  });
});

describe('POST /updateLayer', () => {
  it('deep merges (arrays replace), renames, keeps the place', async () => {
    const mission = await newMission([
      { name: 'A', type: 'tile', url: 'a', uuid: U(1), style: { color: 'red', width: 2 }, tags: [1, 2] },
      { name: 'E', type: 'tile', url: 'e', uuid: U(6) },
    ]);
    const res = await post('updateLayer', {
      mission,
      layerUUID: U(1),
      layer: { name: 'A2', style: { color: 'blue' }, tags: [3] },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'success', mission, version: 2 });
    expect((await latest(mission)).layers[0]).toEqual({
      name: 'A2',
      type: 'tile',
      url: 'a',
      uuid: U(1),
      style: { color: 'blue', width: 2 },
      tags: [3],
    });
  });

  it('moves with placement (defaults: top level, end)', async () => {
    const mission = await newMission();
    const moved = await post('updateLayer', { mission, layerUUID: U(5), layer: {}, placement: {} });
    expect(moved.status).toBe(200);
    expect(outline((await latest(mission)).layers)).toEqual(['A', { H1: ['B', { Inner: [] }] }, 'E', 'C']);
    const back = await post('updateLayer', {
      mission,
      layerUUID: U(5),
      layer: { name: 'C2' },
      placement: { path: 'H1', index: 0 },
    });
    expect(back.status).toBe(200);
    expect(outline((await latest(mission)).layers)).toEqual(['A', { H1: ['C2', 'B', { Inner: [] }] }, 'E']);
  });

  it.each([
    ['an unknown uuid', { layerUUID: U(99), layer: { name: 'x' } }, 404],
    ['a changed uuid', { layerUUID: U(1), layer: { uuid: U(77) } }, 400],
    ['a rename to an empty name', { layerUUID: U(1), layer: { name: '' } }, 400],
    ['a move into itself', { layerUUID: U(2), layer: {}, placement: { path: 'H1.Inner' } }, 400],
    ['a path into a non-header', { layerUUID: U(1), layer: {}, placement: { path: 'E' } }, 400],
    ['a layer that is an array', { layerUUID: U(1), layer: [] }, 400],
    ['a missing layerUUID', { layer: {} }, 400],
    [
      'sublayers on a tile layer',
      { layerUUID: U(1), layer: { sublayers: [{ name: 'z', type: 'tile', url: 'z' }] } },
      400,
    ],
  ])('%s → %d, nothing stored', async (_label, body, status) => {
    const mission = await newMission();
    const res = await post('updateLayer', { mission, ...body });
    expect(res.status).toBe(status);
    expect(res.body.status).toBe('failure');
    expect(await version(mission)).toBe(1);
  });

  it('accepts the unchanged uuid and gives new sublayers uuids', async () => {
    const mission = await newMission();
    const res = await post('updateLayer', {
      mission,
      layerUUID: U(2),
      layer: { uuid: U(2), sublayers: [{ name: 'N', type: 'tile', url: 'n' }] },
    });
    expect(res.status).toBe(200);
    expect(res.body.newlyAddedUUIDs).toEqual([{ name: 'N', uuid: expect.any(String) }]);
    expect(outline((await latest(mission)).layers)).toEqual(['A', { H1: ['N'] }, 'E']);
  });
});

describe('POST /removeLayer', () => {
  it('removes layers with their sublayers and lists them all', async () => {
    const mission = await newMission();
    const res = await post('removeLayer', { mission, layerUUID: [U(2), U(6)] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: 'success',
      mission,
      version: 2,
      removedUUIDs: [
        { name: 'H1', uuid: U(2) },
        { name: 'B', uuid: U(3) },
        { name: 'Inner', uuid: U(4) },
        { name: 'C', uuid: U(5) },
        { name: 'E', uuid: U(6) },
      ],
    });
    expect(outline((await latest(mission)).layers)).toEqual(['A']);
  });

  it('takes a single uuid string', async () => {
    const mission = await newMission();
    const res = await post('removeLayer', { mission, layerUUID: U(3) });
    expect(res.body.removedUUIDs).toEqual([{ name: 'B', uuid: U(3) }]);
  });

  it.each([
    ['an unknown uuid among known ones', { layerUUID: [U(1), U(98)] }, 404],
    ['an empty list', { layerUUID: [] }, 400],
    ['a list with a non-string', { layerUUID: [U(1), 5] }, 400],
    ['a missing layerUUID', {}, 400],
  ])('%s → %d, nothing removed', async (_label, body, status) => {
    const mission = await newMission();
    const res = await post('removeLayer', { mission, ...body });
    expect(res.status).toBe(status);
    if (status === 404) expect(res.body.message).toContain(U(98));
    expect(await version(mission)).toBe(1);
  });
});

describe('POST /updateInitialView', () => {
  it('replaces the given values; no change keeps the version', async () => {
    const mission = await newMission();
    const res = await post('updateInitialView', { mission, latitude: -45.5, zoom: 8 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'success', mission, version: 2 });
    expect((await latest(mission)).msv.view).toEqual([-45.5, 20, 8]);
    const same = await post('updateInitialView', { mission, longitude: 20 });
    expect(same.status).toBe(200);
    expect(same.body.version).toBe(2);
    expect(await version(mission)).toBe(2);
  });

  it.each([
    ['latitude > 90', { latitude: 90.1 }],
    ['latitude < -90', { latitude: -91 }],
    ['longitude > 360', { longitude: 361 }],
    ['longitude < -360', { longitude: -360.5 }],
    ['negative zoom', { zoom: -1 }],
    ['non-numeric zoom', { zoom: 'far' }],
    ['none of the three', {}],
  ])('%s → 400', async (_label, body) => {
    const mission = await newMission();
    const res = await post('updateInitialView', { mission, ...body });
    expect(res.status).toBe(400);
    expect(await version(mission)).toBe(1);
  });

  it('accepts the range limits', async () => {
    const mission = await newMission();
    const res = await post('updateInitialView', { mission, latitude: 90, longitude: -360, zoom: 0 });
    expect(res.status).toBe(200);
    expect((await latest(mission)).msv.view).toEqual([90, -360, 0]);
  });
});
