import { beforeAll, describe, expect, it } from 'vitest';
import { decodeTile } from '../fixtures/tiles.ts';
import { adminToken, apiUrl, apiUrlLocal, call, uniqueName } from '../helpers.ts';

const name = uniqueName('tilejson');
const features = [
  { c: [-10.5, 20.25], p: { n: 1, s: 'a', b: true, o: { k: 1 } } },
  { c: [30, -5.5], p: { n: 2.5, s: 'b', b: false, o: null } },
  { c: [12, 60], p: { n: 3, s: 'c', extra: 'x' } },
];
const fc = () => ({
  type: 'FeatureCollection',
  features: features.map((f) => ({
    type: 'Feature',
    geometry: { type: 'Point', coordinates: f.c },
    properties: f.p,
  })),
});

beforeAll(async () => {
  const r = await call('POST', '/api/geodatasets/recreate', {
    token: adminToken(),
    body: { name, geojson: fc() },
  });
  expect(r.status, r.text).toBe(200);
});

describe('GET /api/geodatasets/tilejson/:name', () => {
  it('answers TileJSON 3.0.0 with bounds, zooms, fields and a tiles template carrying the version', async () => {
    const r = await call('GET', `/api/geodatasets/tilejson/${name}`);
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('no-cache');
    const tj = r.body;
    expect(tj.tilejson).toBe('3.0.0');
    expect(tj.name).toBe(name);
    expect(tj.scheme).toBe('xyz');
    expect(tj.bounds).toEqual([-10.5, -5.5, 30, 60]);
    expect(tj.minzoom).toBe(0);
    expect(tj.maxzoom).toBe(22);
    // The zoom from which every feature is in its tile (docs/tiles.md, "TileJSON"): the three points lie
    // on three pixels from z0 on.
    expect(tj.full_detail_zoom).toBe(0);
    expect(tj.vector_layers).toEqual([
      {
        id: name,
        description: expect.any(String),
        minzoom: 0,
        maxzoom: 22,
        full_detail_zoom: 0,
        fields: { n: 'Number', s: 'String', b: 'Boolean', o: 'String', extra: 'String', _thinned: 'Boolean' },
      },
    ]);
    expect(tj.tiles).toHaveLength(1);
    const tpl: string = tj.tiles[0];
    expect(tpl.startsWith(`${apiUrl()}/api/geodatasets/get/${name}?`)).toBe(true);
    const u = new URL(tpl.replace('{x}', '1').replace('{y}', '0').replace('{z}', '1'));
    expect(u.searchParams.get('type')).toBe('mvt');
    const [{ version }] = await versionOf(name);
    expect(u.searchParams.get('v')).toBe(String(version));

    // The template fetches real tiles: z1 x1 y0 holds the two north-eastern points (ids 3; and none other).
    const res = await fetch(u);
    expect(res.status).toBe(200);
    const tile = decodeTile(Buffer.from(await res.arrayBuffer()));
    expect(tile[name].features.map((f) => f.id)).toEqual([3]);
  });

  it('a write changes the version in the template; filters are validated and carried', async () => {
    const before = (await call('GET', `/api/geodatasets/tilejson/${name}`)).body.tiles[0];
    const w = await call('POST', `/api/geodatasets/append/${name}`, {
      token: adminToken(),
      body: {
        type: 'FeatureCollection',
        features: [{ type: 'Feature', geometry: { type: 'Point', coordinates: [0, 0] }, properties: {} }],
      },
    });
    expect(w.status, w.text).toBe(200);
    const after = (await call('GET', `/api/geodatasets/tilejson/${name}`)).body.tiles[0];
    expect(after).not.toBe(before);
    expect(new URL(after.replace(/[{}]/g, '')).searchParams.get('v')).not.toBe(
      new URL(before.replace(/[{}]/g, '')).searchParams.get('v'),
    );

    const f = await call(
      'GET',
      `/api/geodatasets/tilejson/${name}?filters=${encodeURIComponent('s+=+string+a')}`,
    );
    expect(f.status).toBe(200);
    const fu = new URL(f.body.tiles[0].replace(/[{}]/g, ''));
    expect(fu.searchParams.get('filters')).toBe('s+=+string+a');
    const bad = await call(
      'GET',
      `/api/geodatasets/tilejson/${name}?filters=${encodeURIComponent('s+~+string+a')}`,
    );
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('filters');
  });

  it('_source narrows the fields and is carried into the tiles URL', async () => {
    const r = await call('GET', `/api/geodatasets/tilejson/${name}?_source=n,o.k,s`);
    expect(r.status).toBe(200);
    expect(r.body.vector_layers[0].fields).toEqual({
      n: 'Number',
      'o.k': 'Number',
      s: 'String',
      _thinned: 'Boolean',
    });
    const u = new URL(r.body.tiles[0].replace('{x}', '1').replace('{y}', '0').replace('{z}', '1'));
    expect(u.searchParams.get('_source')).toBe('n,o.k,s');
    const res = await fetch(u);
    expect(res.status).toBe(200);
    const f = decodeTile(Buffer.from(await res.arrayBuffer()))[name].features;
    // Feature 3 has n and s but no o; the point appended at (0, 0) above has no properties at all.
    expect(f.find((x) => x.id === 3)?.properties).toEqual({ n: 3, s: 'c' });
    for (const x of f)
      expect(Object.keys(x.properties).every((k) => ['n', 'o.k', 's'].includes(k))).toBe(true);
    const bad = await call('GET', `/api/geodatasets/tilejson/${name}?_source=${encodeURIComponent("a'b")}`);
    expect(bad.status).toBe(400);
  });

  it('404 for an unknown dataset, 400 for a bad name, 401 anonymous under AUTH=local', async () => {
    expect((await call('GET', `/api/geodatasets/tilejson/${uniqueName('none')}`)).status).toBe(404);
    expect((await call('GET', `/api/geodatasets/tilejson/${encodeURIComponent("a'b")}`)).status).toBe(400);
    expect((await call('GET', `/api/geodatasets/tilejson/${name}`, { base: apiUrlLocal() })).status).toBe(
      401,
    );
  });
});

async function versionOf(n: string): Promise<{ version: number }[]> {
  const { getDb } = await import('#lib/db/index.ts');
  return (await getDb().sql`select version::int as version from geodatasets where name = ${n}`) as any;
}
