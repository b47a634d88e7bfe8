import { beforeAll, describe, expect, it } from 'vitest';
import { decodeTile, mercator, tilePixel } from '../fixtures/tiles.ts';
import { adminToken, apiUrl, apiUrlLocal, call, uniqueName } from '../helpers.ts';

const name = uniqueName('tiles_api');
const N = 40;
const points = Array.from({ length: N }, (_, i) => [10 + (i % 8) * 0.1, 45 + Math.floor(i / 8) * 0.1]);
const fc = (pts: number[][], offset = 0) => ({
  type: 'FeatureCollection',
  features: pts.map((c, i) => ({
    type: 'Feature',
    geometry: { type: 'Point', coordinates: c },
    properties: { n: offset + i + 1, label: `pt ${offset + i + 1}`, meta: { a: [1, 2] } },
  })),
});

const z = 8;
const [fx, fy] = mercator(10.35, 45.2);
const tile = { z, x: Math.floor(fx * 2 ** z), y: Math.floor(fy * 2 ** z) };
const tileQuery = (t = tile) => `type=mvt&x=${t.x}&y=${t.y}&z=${t.z}`;

async function get(path: string, headers: Record<string, string> = {}, base = apiUrl()) {
  const res = await fetch(`${base}${path}`, { headers });
  const buf = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, buf };
}

beforeAll(async () => {
  const r = await call('POST', '/api/geodatasets/recreate', {
    token: adminToken(),
    body: { name, geojson: fc(points) },
  });
  expect(r.status, r.text).toBe(200);
});

describe('GET /api/geodatasets/get type=mvt over HTTP', () => {
  it('answers 200 application/x-protobuf with the features, ids and attributes, ETag and Cache-Control', async () => {
    const r = await get(`/api/geodatasets/get/${name}?${tileQuery()}`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/x-protobuf');
    expect(r.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]{16,}"$/);
    expect(r.headers.get('cache-control')).toBe('public, max-age=300');
    const layers = decodeTile(r.buf);
    expect(Object.keys(layers)).toEqual([name]);
    const feats = layers[name].features;
    // Every point lies within the tile's pixels (+buffer), computed independently.
    const expected = points
      .map((c, i) => ({ id: i + 1, px: tilePixel(c[0], c[1], tile.z, tile.x, tile.y) }))
      .filter(({ px }) => px.every((v) => v > -64 && v < 4160));
    expect(expected.length).toBeGreaterThan(0);
    expect(feats.map((f) => f.id)).toEqual(expected.map((e) => e.id));
    for (const f of feats) {
      expect(f.type).toBe(1);
      expect(f.properties).toEqual({ n: f.id, label: `pt ${f.id}`, meta: '{"a": [1, 2]}' });
      const e = expected.find((x) => x.id === f.id)!;
      expect(Math.abs(f.geometry[0][0].x - e.px[0])).toBeLessThanOrEqual(1);
      expect(Math.abs(f.geometry[0][0].y - e.px[1])).toBeLessThanOrEqual(1);
    }
    // The query-string form of the route gives the same tile and the same ETag.
    const q = await get(`/api/geodatasets/get?layer=${name}&${tileQuery()}`);
    expect(q.status).toBe(200);
    expect(Buffer.compare(q.buf, r.buf)).toBe(0);
    expect(q.headers.get('etag')).toBe(r.headers.get('etag'));
    // stats/limit are ignored for mvt: same ETag, same tile.
    const s = await get(`/api/geodatasets/get/${name}?${tileQuery()}&stats=n&limit=1`);
    expect(s.headers.get('etag')).toBe(r.headers.get('etag'));
    expect(Buffer.compare(s.buf, r.buf)).toBe(0);
  });

  it('applies filters: a filter changes the tile and its ETag', async () => {
    const all = await get(`/api/geodatasets/get/${name}?${tileQuery()}`);
    const r = await get(`/api/geodatasets/get/${name}?${tileQuery()}&filters=n+>+number+30`);
    expect(r.status).toBe(200);
    expect(decodeTile(r.buf)[name].features.length).toBeGreaterThan(0);
    expect(decodeTile(r.buf)[name].features.map((f) => f.id)).toEqual(
      decodeTile(all.buf)
        [name].features.map((f) => f.id!)
        .filter((id) => id > 30),
    );
    expect(r.headers.get('etag')).not.toBe(all.headers.get('etag'));
  });

  it('answers 204 with ETag and Cache-Control for an empty tile', async () => {
    const r = await get(`/api/geodatasets/get/${name}?type=mvt&x=0&y=0&z=10`);
    expect(r.status).toBe(204);
    expect(r.buf.length).toBe(0);
    expect(r.headers.get('etag')).toMatch(/^"/);
    expect(r.headers.get('cache-control')).toBe('public, max-age=300');
  });

  it('answers 304 to If-None-Match with the current ETag, and 200 again after a write', async () => {
    const first = await get(`/api/geodatasets/get/${name}?${tileQuery()}`);
    const etag = first.headers.get('etag')!;
    const again = await get(`/api/geodatasets/get/${name}?${tileQuery()}`, { 'If-None-Match': etag });
    expect(again.status).toBe(304);
    expect(again.buf.length).toBe(0);
    expect(again.headers.get('etag')).toBe(etag);
    expect(again.headers.get('cache-control')).toBe('public, max-age=300');
    const listed = await get(`/api/geodatasets/get/${name}?${tileQuery()}`, {
      'If-None-Match': `"other", W/${etag}`,
    });
    expect(listed.status).toBe(304);
    const other = await get(`/api/geodatasets/get/${name}?${tileQuery()}`, { 'If-None-Match': '"nope"' });
    expect(other.status).toBe(200);

    // A write bumps the dataset version: the ETag changes and the old one no longer matches.
    const w = await call('POST', `/api/geodatasets/append/${name}`, {
      token: adminToken(),
      body: fc([[10.35, 45.2]], N),
    });
    expect(w.status, w.text).toBe(200);
    const after = await get(`/api/geodatasets/get/${name}?${tileQuery()}`, { 'If-None-Match': etag });
    expect(after.status).toBe(200);
    expect(after.headers.get('etag')).not.toBe(etag);
    expect(decodeTile(after.buf)[name].features.map((f) => f.id)).toContain(N + 1);
    const empty = await get(`/api/geodatasets/get/${name}?type=mvt&x=0&y=0&z=10`);
    expect(empty.status).toBe(204);
  });

  it('refuses a bad tile address with 400 naming the parameter', async () => {
    const cases: [string, string][] = [
      ['x=0&y=0&z=25', 'z'],
      ['x=2&y=0&z=1', 'x'],
      ['x=0&y=4&z=2', 'y'],
      ['x=-1&y=0&z=1', 'x'],
      ['x=abc&y=0&z=1', 'x'],
      ['y=0&z=1', 'x'],
      ['x=0&y=0', 'z'],
      ['x=0.5&y=0&z=1', 'x'],
    ];
    for (const [q, field] of cases) {
      const r = await call('GET', `/api/geodatasets/get/${name}?type=mvt&${q}`);
      expect(r.status, q).toBe(400);
      expect(r.body.status).toBe('failure');
      expect(r.body.message, q).toContain(field);
    }
    const f = await call('GET', `/api/geodatasets/get/${name}?${tileQuery()}&filters=n+~+number+1`);
    expect(f.status).toBe(400);
    expect(f.body.message).toContain('filters');
    const src = await call(
      'GET',
      `/api/geodatasets/get/${name}?${tileQuery()}&_source=${encodeURIComponent('n"); drop table geodatasets;--')}`,
    );
    expect(src.status).toBe(400);
    expect(src.body.message).toContain('_source');
    // An injection attempt in a filter value is just a value: no feature matches, the table is intact.
    const inj = await get(
      `/api/geodatasets/get/${name}?${tileQuery()}&filters=${encodeURIComponent("label+=+string+x' or '1'='1")}`,
    );
    expect(inj.status).toBe(204);
    expect((await get(`/api/geodatasets/get/${name}?${tileQuery()}`)).status).toBe(200);
    const u = await call('GET', `/api/geodatasets/get/${uniqueName('nope')}?${tileQuery()}`);
    expect(u.status).toBe(404);
  });

  it('refuses out-of-bounds tile parameters with 400 naming the field (the declared bounds)', async () => {
    const cases: [string, RegExp][] = [
      ['&v=-1', /'v' must be >= 0/],
      ['&v=abc', /'v' must be integer/],
      [`&_source[]=${'a'.repeat(257)}`, /'_source\[\]\.0' must NOT have more than 256/],
      [
        `&${Array.from({ length: 51 }, (_, k) => `_source[]=f${k}`).join('&')}`,
        /'_source' names more than 50/,
      ],
      [`&group_id=${'g'.repeat(1001)}`, /'group_id' must NOT have more than 1000/],
      ['&minx=0&miny=0&maxx=1&maxy=1e300', /'maxy' must be <= 1000000/],
      ['&noDuplicates=perhaps', /'noDuplicates'/],
      ['&type=png', /'type'/],
    ];
    for (const [extra, message] of cases) {
      const r = await call('GET', `/api/geodatasets/get/${name}?${tileQuery()}${extra}`);
      expect(r.status, extra.slice(0, 40)).toBe(400);
      expect(r.body.message, extra.slice(0, 40)).toMatch(message);
    }
  });

  it('keys the ETag on the declared tile parameters: a cache buster does not change it, _source[] does', async () => {
    const plain = await get(`/api/geodatasets/get/${name}?${tileQuery()}`);
    const busted = await get(`/api/geodatasets/get/${name}?${tileQuery()}&_=1700000000000`);
    expect(plain.status).toBe(200);
    expect(busted.headers.get('etag')).toBe(plain.headers.get('etag'));
    const one = await get(`/api/geodatasets/get/${name}?${tileQuery()}&_source[]=n&_source[]=label`);
    const listed = await get(`/api/geodatasets/get/${name}?${tileQuery()}&_source=n,label`);
    expect(one.status).toBe(200);
    expect(one.headers.get('etag')).not.toBe(plain.headers.get('etag'));
    const features = decodeTile(one.buf)[name].features;
    expect(Object.keys(features[0].properties).sort()).toEqual(['label', 'n']);
    expect(one.buf.equals(listed.buf)).toBe(true);
  });

  it('under AUTH=local, tiles need a login and are private to the browser cache', async () => {
    const anon = await get(`/api/geodatasets/get/${name}?${tileQuery()}`, {}, apiUrlLocal());
    expect(anon.status).toBe(401);
    const r = await get(
      `/api/geodatasets/get/${name}?${tileQuery()}`,
      { authorization: `Bearer ${adminToken()}` },
      apiUrlLocal(),
    );
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('private, max-age=300');
  });
});
