import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '#lib/db/index.ts';
import { recreateGeodataset } from '#lib/geodatasets/write/write.ts';
import { expectedIds, metaOf, type Row, readFeatures, T0 } from '../fixtures/readModel.ts';
import { apiUrlLocal, call, uniqueName } from '../helpers.ts';

const db = getDb();
const features = readFeatures(120, 23);
const other = readFeatures(40, 5).map((f) => ({
  ...f,
  properties: { ...f.properties, only: 'here', flag: f.properties.name !== 'f3' },
}));
const rows: Row[] = features.map((feature, i) => ({ id: i + 1, feature }));
const name = uniqueName('gdr_more');
const name2 = uniqueName('gdr_more2');
const day = 86400000;

beforeAll(async () => {
  await recreateGeodataset(
    db,
    { type: 'FeatureCollection', features },
    { name, startProp: 't0', endProp: 't1', groupIdProp: 'g' },
  );
  await recreateGeodataset(db, { type: 'FeatureCollection', features: other }, { name: name2 });
});

afterAll(async () => {
  for (const n of [name, name2]) {
    const [row] = await db.sql`select table_name from geodatasets where name = ${n}`;
    if (!row) continue;
    await db.sql.unsafe(`drop table if exists ${row.table_name as string}`);
    await db.sql`delete from geodatasets where name = ${n}`;
  }
});

const idsOf = (features: any[]) => features.map((f: any) => f.properties._.idx);
const box = (a: number, b: number, c: number, d: number) => ({
  type: 'Polygon',
  coordinates: [
    [
      [a, b],
      [c, b],
      [c, d],
      [a, d],
      [a, b],
    ],
  ],
});

describe('POST /api/geodatasets/intersect', () => {
  it('returns the features inside a polygon, as in get', async () => {
    const res = await call('POST', '/api/geodatasets/intersect', {
      body: { layer: name, intersect: box(-4.0000005, -3.0000005, 5.0000005, 6.0000005) },
    });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('success');
    expect(res.body.body.type).toBe('FeatureCollection');
    const want = expectedIds(rows, { bbox: [-4.0000005, -3.0000005, 5.0000005, 6.0000005] }, true);
    expect(want.length).toBeGreaterThan(5);
    expect(idsOf(res.body.body.features)).toEqual(want);
    const first = res.body.body.features[0];
    expect(first.properties).toEqual({
      ...JSON.parse(JSON.stringify(features[want[0] - 1].properties)),
      _: metaOf(features[want[0] - 1].properties, want[0]),
    });
  });

  it('accepts the geometry as a string, with noDuplicates and a time window', async () => {
    const from = T0 + 90 * day;
    const to = T0 + 200 * day;
    const res = await call('POST', '/api/geodatasets/intersect', {
      body: {
        layer: name,
        intersect: JSON.stringify(box(-8.0000005, -8.0000005, 8.0000005, 8.0000005)),
        noDuplicates: true,
        starttime: new Date(from).toISOString(),
        endtime: new Date(to).toISOString(),
      },
    });
    expect(res.status).toBe(200);
    const want = expectedIds(
      rows,
      { bbox: [-8.0000005, -8.0000005, 8.0000005, 8.0000005], from, to, noDuplicates: true },
      true,
    );
    expect(want.length).toBeGreaterThan(2);
    expect(idsOf(res.body.body.features)).toEqual(want);
  });

  const bad: [string, unknown, RegExp][] = [
    ['a missing geometry', { layer: name }, /intersect/],
    ['invalid JSON text', { layer: name, intersect: '{"type":' }, /not valid JSON/],
    ['an unknown type', { layer: name, intersect: { type: 'Circle', coordinates: [0, 0] } }, /geometry/],
    ['a bad position', { layer: name, intersect: { type: 'Point', coordinates: [1] } }, /position/],
    [
      'an unclosed ring',
      {
        layer: name,
        intersect: {
          type: 'Polygon',
          coordinates: [
            [
              [0, 0],
              [1, 0],
              [1, 1],
              [0, 2],
            ],
          ],
        },
      },
      /intersect/,
    ],
    ['a bad time', { layer: name, intersect: box(0, 0, 1, 1), starttime: 'soon' }, /starttime/],
  ];
  for (const [label, body, message] of bad) {
    it(`400 for ${label}`, async () => {
      const res = await call('POST', '/api/geodatasets/intersect', { body });
      expect(res.status, res.text).toBe(400);
      expect(res.body.message).toMatch(message);
    });
  }
});

describe('POST /api/geodatasets/search', () => {
  const cases: [string, string, unknown, (p: any) => boolean][] = [
    ['a string', 's', 'beta', (p) => p.s === 'beta'],
    ['the text of a number ("5" finds 5 and "5")', 'k', '5', (p) => p.k === 5 || p.k === '5'],
    ['a nested dot path', 'nested.a.b', '9', (p) => p.nested.a.b === 9 || p.nested.a.b === '9'],
    ['a number value', 'k', 6, (p) => p.k === 6 || p.k === '6'],
  ];
  for (const [label, key, value, pred] of cases) {
    it(`finds ${label}`, async () => {
      const res = await call('POST', '/api/geodatasets/search', { body: { layer: name, key, value } });
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('success');
      const want = rows.filter((r) => pred(r.feature.properties)).map((r) => r.id);
      expect(want.length).toBeGreaterThan(0);
      expect(idsOf(res.body.body)).toEqual(want);
    });
  }
  it('400 for a missing key or an injection string in the key; 404 for an unknown layer', async () => {
    expect(
      (await call('POST', '/api/geodatasets/search', { body: { layer: name, value: 'x' } })).status,
    ).toBe(400);
    const inj = await call('POST', '/api/geodatasets/search', {
      body: { layer: name, key: "s'--", value: 'x' },
    });
    expect(inj.status).toBe(400);
    expect(inj.body.message).toMatch(/'key'/);
    const unknown = await call('POST', '/api/geodatasets/search', {
      body: { layer: uniqueName('none'), key: 's', value: 'x' },
    });
    expect(unknown.status).toBe(404);
  });
});

function jsonType(v: unknown): string {
  return Array.isArray(v) ? 'array' : typeof v === 'object' ? 'object' : typeof v;
}

describe('GET /api/geodatasets/schema', () => {
  it('lists each field with its majority type and layers, and field_stats from the catalog', async () => {
    const res = await call('GET', `/api/geodatasets/schema?layers=${name},${name2}`);
    expect(res.status).toBe(200);
    const types = new Map<string, Map<string, number>>();
    const layers = new Map<string, Set<string>>();
    for (const [layer, fs] of [
      [name, features],
      [name2, other],
    ] as const) {
      for (const f of fs) {
        for (const [k, v] of Object.entries(f.properties)) {
          if (v === null || v === undefined) continue;
          const t = types.get(k) ?? new Map();
          t.set(jsonType(v), (t.get(jsonType(v)) ?? 0) + 1);
          types.set(k, t);
          layers.set(k, (layers.get(k) ?? new Set()).add(layer));
        }
      }
    }
    const want: Record<string, unknown> = {};
    for (const [k, t] of types) {
      const best = [...t.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0][0];
      want[k] = { type: best, layers: [...layers.get(k)!] };
    }
    expect(res.body.status).toBe('success');
    expect(res.body.schema).toEqual(want);
    expect(res.body.schema.only).toEqual({ type: 'string', layers: [name2] });
    // field_stats: 'n' by the numeric rule, computed by hand
    const nums = features
      .map((f) => f.properties.n)
      .flatMap((v) =>
        typeof v === 'number'
          ? [v]
          : typeof v === 'string' && /^-?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(v)
            ? [Number(v)]
            : [],
      );
    const n = res.body.field_stats[name].n;
    expect(n.count).toBe(nums.length);
    expect(n.nullCount).toBe(features.length - nums.length);
    expect(n.min).toBe(Math.min(...nums));
    expect(n.max).toBe(Math.max(...nums));
    expect(n.sum).toBeCloseTo(
      nums.reduce((a, b) => a + b, 0),
      6,
    );
  });

  it('400 over 100 layers (before any lookup), 404 naming unknown layers, 400 without layers', async () => {
    const many = Array.from({ length: 101 }, (_, i) => `nope${i}`).join(',');
    const tooMany = await call('GET', `/api/geodatasets/schema?layers=${many}`);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.message).toMatch(/100/);
    const unknown = await call('GET', `/api/geodatasets/schema?layers=${name},nope_${name}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toContain(`nope_${name}`);
    expect((await call('GET', '/api/geodatasets/schema')).status).toBe(400);
  });

  it('needs a login under AUTH=local', async () => {
    const res = await call('GET', `/api/geodatasets/schema?layers=${name}`, { base: apiUrlLocal() });
    expect(res.status).toBe(401);
  });
});

describe('GET /api/geodatasets/aggregations and bulk_aggregations', () => {
  function expectedAggregations(props: Record<string, unknown>[]) {
    const out: Record<string, any> = {};
    const fields = new Set(props.flatMap((p) => Object.keys(p)));
    for (const field of fields) {
      const vals = props.map((p) => p[field]).filter((v) => v !== null && v !== undefined);
      const count = (t: string) => vals.filter((v) => jsonType(v) === t).length;
      const type = ['number', 'string', 'boolean', 'object', 'array'].reduce((b, t) =>
        count(t) > count(b) ? t : b,
      );
      if (type === 'number') {
        const nums = vals.filter((v): v is number => typeof v === 'number');
        const min = Math.min(...nums);
        const max = Math.max(...nums);
        const counts = new Array(10).fill(0);
        for (const v of nums)
          counts[max === min ? 0 : Math.min(9, Math.floor(((v - min) / (max - min)) * 10))]++;
        out[field] = { type, min, max, counts };
      } else if (type === 'string') {
        const freq: Record<string, number> = {};
        for (const v of vals) if (typeof v === 'string') freq[v] = (freq[v] ?? 0) + 1;
        out[field] = { type, values: freq };
      } else if (type === 'boolean') {
        out[field] = {
          type,
          values: {
            true: vals.filter((v) => v === true).length,
            false: vals.filter((v) => v === false).length,
          },
        };
      }
    }
    return out;
  }

  function compare(got: any, want: any) {
    expect(Object.keys(got).sort()).toEqual(Object.keys(want).sort());
    for (const [field, w] of Object.entries(want as Record<string, any>)) {
      const g = got[field];
      expect(g.type, field).toBe(w.type);
      if (w.type === 'number') {
        expect(g.min).toBe(w.min);
        expect(g.max).toBe(w.max);
        expect(g.histogram.length).toBe(10);
        expect(g.histogram.map((b: any) => b.count)).toEqual(w.counts);
        expect(g.histogram[0].min).toBe(w.min);
        expect(g.histogram[9].max).toBe(w.max);
      } else if (w.type === 'string') {
        const top = Object.entries(w.values as Record<string, number>)
          .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
          .slice(0, 50);
        expect(g.values).toEqual(Object.fromEntries(top));
      } else expect(g.values).toEqual(w.values);
    }
  }

  it('summarizes the whole matched set when the sample covers it, with total and bbox', async () => {
    const res = await call(
      'GET',
      `/api/geodatasets/aggregations?layer=${name}&limit=1000&minx=-6&miny=-6&maxx=6&maxy=6`,
    );
    expect(res.status).toBe(200);
    const want = expectedIds(rows, { bbox: [-6, -6, 6, 6] }, true);
    expect(res.body.body.layer).toBe(name);
    expect(res.body.body.total).toBe(want.length);
    expect(res.body.body.sampled).toBe(want.length);
    compare(res.body.body.aggregations, expectedAggregations(want.map((id) => features[id - 1].properties)));
  });

  it('samples limit features (clamped to 1..1000) and counts the total', async () => {
    const a = await call('GET', `/api/geodatasets/aggregations?layer=${name}&limit=7`);
    expect(a.body.body.sampled).toBe(7);
    expect(a.body.body.total).toBe(120);
    expect((await call('GET', `/api/geodatasets/aggregations?layer=${name}&limit=0`)).body.body.sampled).toBe(
      1,
    );
    expect((await call('GET', `/api/geodatasets/aggregations?layer=${name}`)).body.body.sampled).toBe(120);
    expect((await call('GET', `/api/geodatasets/aggregations?layer=${name}&limit=x`)).status).toBe(400);
    expect((await call('GET', `/api/geodatasets/aggregations?layer=${uniqueName('no')}`)).status).toBe(404);
  });

  it('bulk: one body per layer with a time window; 404 naming unknown layers; 400 over 100', async () => {
    const from = T0 + 150 * day;
    const res = await call(
      'GET',
      `/api/geodatasets/bulk_aggregations?layers=${name},${name2}&starttime=${new Date(from).toISOString()}`,
    );
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.body).sort()).toEqual([name, name2].sort());
    const want = expectedIds(rows, { from }, true);
    expect(res.body.body[name].total).toBe(want.length);
    compare(
      res.body.body[name].aggregations,
      expectedAggregations(want.map((id) => features[id - 1].properties)),
    );
    expect(res.body.body[name2].total).toBe(0); // no start/end columns on the second dataset
    const unknown = await call('GET', `/api/geodatasets/bulk_aggregations?layers=${name},zz_${name}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toContain(`zz_${name}`);
    const many = Array.from({ length: 101 }, (_, i) => `l${i}`).join(',');
    expect((await call('GET', `/api/geodatasets/bulk_aggregations?layers=${many}`)).status).toBe(400);
  });
});
