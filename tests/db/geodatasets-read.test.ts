import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '#lib/db/index.ts';
import { type Geodataset, requireDataset } from '#lib/geodatasets/catalog.ts';
import { updateExtents } from '#lib/geodatasets/extents.ts';
import { parseReadFilters, resolveReadFilters } from '#lib/geodatasets/read/filters.ts';
import { featureChunks, parseGeojsonOptions, readFeatureCollection } from '#lib/geodatasets/read/geojson.ts';
import { recreateGeodataset } from '#lib/geodatasets/write/write.ts';
import { createFixtureDataset, dropFixtureDataset } from '../fixtures/geodatasets.ts';
import { getInput } from '../fixtures/getInput.ts';
import {
  at,
  expectedIds,
  groupKey,
  haversine,
  type ModelParams,
  metaOf,
  numeric,
  type Row,
  readFeatures,
  stat,
  T0,
} from '../fixtures/readModel.ts';
import { uniqueName } from '../helpers.ts';

const db = getDb();
const features = readFeatures(400);
const rows: Row[] = features.map((feature, i) => ({ id: i + 1, feature }));
let grouped: Geodataset;
let plain: Geodataset;
let legacy: Geodataset;

beforeAll(async () => {
  grouped = await createFixtureDataset(db, uniqueName('gdr_g'), features, {
    startProp: 't0',
    endProp: 't1',
    groupIdProp: 'g',
  });
  plain = await createFixtureDataset(db, uniqueName('gdr_p'), features);
  legacy = await createFixtureDataset(db, uniqueName('gdr_j'), features, {
    startProp: 't0',
    endProp: 't1',
    groupIdProp: 'g',
    propertiesType: 'json',
  });
});

afterAll(async () => {
  for (const ds of [grouped, plain, legacy]) if (ds) await dropFixtureDataset(db, ds);
});

async function read(ds: Geodataset, query: Record<string, unknown>) {
  const f = await resolveReadFilters(db.sql, parseReadFilters(getInput(query)));
  const text = await readFeatureCollection(db.sql, ds, f, parseGeojsonOptions(getInput(query)));
  return JSON.parse(text) as { type: string; features: any[] };
}

const ids = (fc: { features: any[] }) => fc.features.map((f) => f.properties._.idx as number);
const iso = (ms: number) => new Date(ms).toISOString();
const day = 86400000;
const str = (v: unknown) =>
  v === undefined || v === null ? undefined : typeof v === 'string' ? v : JSON.stringify(v);

// Each case: the request's parameters and the same request in the independent model.
const cases: [string, Record<string, unknown>, ModelParams][] = [
  ['nothing', {}, {}],
  ['bbox', { minx: -3, miny: -4.5, maxx: 6, maxy: 2 }, { bbox: [-3, -4.5, 6, 2] }],
  ['bbox as numeric strings', { minx: '-3', miny: '-4.5', maxx: '6', maxy: '2' }, { bbox: [-3, -4.5, 6, 2] }],
  ['starttime only', { starttime: iso(T0 + 200 * day) }, { from: T0 + 200 * day }],
  ['endtime only', { endtime: iso(T0 + 100 * day) }, { to: T0 + 100 * day }],
  [
    'time window',
    { starttime: iso(T0 + 100 * day), endtime: iso(T0 + 130 * day) },
    { from: T0 + 100 * day, to: T0 + 130 * day },
  ],
  [
    'time window with date-only and offset forms',
    { starttime: '2024-04-10', endtime: '2024-05-01T02:00:00+02:00' },
    { from: Date.UTC(2024, 3, 10), to: Date.UTC(2024, 4, 1) },
  ],
  [
    'time window on the configured props by name',
    { starttime: iso(T0 + 100 * day), endtime: iso(T0 + 130 * day), startProp: 't0', endProp: 'end_time' },
    { from: T0 + 100 * day, to: T0 + 130 * day },
  ],
  [
    'time window on another property (epoch ms, read per feature)',
    { starttime: iso(T0 + 50 * day), endtime: iso(T0 + 80 * day), startProp: 'when', endProp: 'when' },
    { from: T0 + 50 * day, to: T0 + 80 * day, startKey: 'when', endKey: 'when' },
  ],
  [
    'custom format on the request times',
    { starttime: '10/04/2024 00:00', endtime: '01/05/2024 00:00', format: 'DD/MM/YYYY HH24:MI' },
    { from: Date.UTC(2024, 3, 10), to: Date.UTC(2024, 4, 1) },
  ],
  ['group_id', { group_id: 'C' }, { groupId: 'C' }],
  ['id', { id: 17 }, { id: 17 }],
  ['unknown id', { id: 100000 }, { id: 100000 }],
  ['spatialFilter', { spatialFilter: '2.5,-1.25,400000' }, { circle: [2.5, -1.25, 400000] }],
  ['filters number >', { filters: 'n+>+number+10' }, { filters: [(p) => (numeric(p.n) ?? Number.NaN) > 10] }],
  [
    'filters number < on a nested path',
    { filters: 'nested.a.b+<+number+100' },
    { filters: [(p) => (numeric(at(p, 'nested.a.b')) ?? Number.NaN) < 100] },
  ],
  [
    'filters number = matches 5 and "5"',
    { filters: 'k+=+number+5' },
    { filters: [(p) => numeric(p.k) === 5] },
  ],
  ['filters string = matches 5 and "5"', { filters: 'k+=+string+5' }, { filters: [(p) => str(p.k) === '5'] }],
  [
    'filters string = with a + in the value',
    { filters: 'k+=+string+x+y' },
    { filters: [(p) => p.k === 'x+y'] },
  ],
  [
    'filters string in',
    { filters: 's+in+string+alpha$Delta' },
    { filters: [(p) => ['alpha', 'Delta'].includes(p.s as string)] },
  ],
  [
    'filters number in',
    { filters: 'k+in+number+6$5' },
    { filters: [(p) => [5, 6].includes(numeric(p.k) as number)] },
  ],
  [
    'filters string > (code points)',
    { filters: 's+>+string+beta' },
    { filters: [(p) => (p.s as string) > 'beta'] },
  ],
  [
    'filters with spaces as separators (a decoded +) and two entries',
    { filters: 's = string beta gamma,n > number 0' },
    { filters: [(p) => p.s === 'beta gamma', (p) => (numeric(p.n) ?? Number.NaN) > 0] },
  ],
  [
    'four number filters (one numeric rule shared, lib/geodatasets/read/filters.ts) and a string one',
    { filters: 'n+>+number+-100,k+in+number+6$5,nested.a.b+<+number+100,s+=+string+beta,n+<+number+1000' },
    {
      filters: [
        (p) => (numeric(p.n) ?? Number.NaN) > -100,
        (p) => [5, 6].includes(numeric(p.k) as number),
        (p) => (numeric(at(p, 'nested.a.b')) ?? Number.NaN) < 100,
        (p) => p.s === 'beta',
        (p) => (numeric(p.n) ?? Number.NaN) < 1000,
      ],
    },
  ],
  [
    'three number filters, one on an unknown path: nothing',
    { filters: 'n+>+number+-100,k+in+number+6$5,absent+>+number+0' },
    { filters: [() => false] },
  ],
  ['noDuplicates', { noDuplicates: 'true' }, { noDuplicates: true }],
  [
    'everything together',
    {
      minx: -8,
      miny: -8,
      maxx: 8,
      maxy: 8,
      starttime: iso(T0 + 20 * day),
      endtime: iso(T0 + 300 * day),
      spatialFilter: '0,0,900000',
      filters: 'n+>+number+-100,s+in+string+alpha$beta$gamma',
      noDuplicates: true,
    },
    {
      bbox: [-8, -8, 8, 8],
      from: T0 + 20 * day,
      to: T0 + 300 * day,
      circle: [0, 0, 900000],
      filters: [
        (p) => (numeric(p.n) ?? Number.NaN) > -100,
        (p) => ['alpha', 'beta', 'gamma'].includes(p.s as string),
      ],
      noDuplicates: true,
    },
  ],
  [
    'group_id with time and noDuplicates',
    { group_id: 'A', starttime: iso(T0 + 100 * day), noDuplicates: '1' },
    { groupId: 'A', from: T0 + 100 * day, noDuplicates: true },
  ],
];

describe('GET /get geojson: every filter against an independent model', () => {
  it('the circles of the test are not ambiguous at the sphere radius used', () => {
    for (const [, , m] of cases) {
      if (!m.circle) continue;
      const [lat, lng, r] = m.circle;
      for (const { feature } of rows) {
        const [x, y] = feature.geometry.coordinates as number[];
        expect(Math.abs(haversine(lat, lng, y, x) - r) / r).toBeGreaterThan(1e-4);
      }
    }
  });

  for (const [name, query, model] of cases) {
    it(`${name} (dataset with group ids)`, async () => {
      const want = expectedIds(rows, model, true);
      const fc = await read(grouped, query);
      expect(fc.type).toBe('FeatureCollection');
      expect(ids(fc)).toEqual(want);
      if (name === 'nothing') expect(want.length).toBe(400);
      else if (!name.includes('unknown')) expect(want.length).toBeGreaterThan(0);
      if (name !== 'nothing' && !name.startsWith('id')) expect(want.length).toBeLessThan(400);
    });
    it(`${name} (legacy json properties)`, async () => {
      expect(ids(await read(legacy, query))).toEqual(expectedIds(rows, model, true));
    });
    it(`${name} (dataset without group ids, times read per feature)`, async () => {
      const q = { ...query };
      const m = { ...model };
      if ((q.starttime || q.endtime) && !q.startProp) {
        q.startProp = 't0';
        q.endProp = 't1';
      }
      if (q.startProp === 't0' && q.endProp === 'end_time') q.endProp = 't1';
      if (q.group_id) return; // no group ids stored
      if (q.format) return; // a custom format applies to per-feature properties too (tested below)
      expect(ids(await read(plain, q))).toEqual(expectedIds(rows, m, false));
    });
  }

  it('custom format on a per-feature property (DD/MM/YYYY)', async () => {
    const fc = await read(plain, {
      starttime: '01/03/2024',
      endtime: '15/03/2024',
      format: 'DD/MM/YYYY',
      startProp: 'day',
      endProp: 'day',
    });
    const want = rows
      .filter(({ feature }) => {
        const [d, m, y] = (feature.properties.day as string).split('/').map(Number);
        const t = Date.UTC(y, m - 1, d);
        return t >= Date.UTC(2024, 2, 1) && t <= Date.UTC(2024, 2, 15);
      })
      .map((r) => r.id);
    expect(want.length).toBeGreaterThan(0);
    expect(ids(fc)).toEqual(want);
  });

  it('returns whole features: geometry, all properties and _.idx', async () => {
    const fc = await read(grouped, { id: 5 });
    expect(fc.features).toEqual([
      {
        type: 'Feature',
        geometry: features[4].geometry,
        properties: {
          ...JSON.parse(JSON.stringify(features[4].properties)),
          _: metaOf(features[4].properties, 5),
        },
      },
    ]);
  });

  it('_source keeps only the requested paths, nested objects kept, _ always present', async () => {
    const fc = await read(grouped, { _source: 'name,nested.a.b,missing,nested.c', limit: 5 });
    expect(fc.features.map((f) => f.properties)).toEqual(
      rows.slice(0, 5).map(({ id, feature: { properties: p } }) => ({
        name: p.name,
        nested: { a: { b: (p.nested as any).a.b }, c: 'keep' },
        _: metaOf(p, id),
      })),
    );
  });

  it('limit, offset, limited; pages together equal the unpaged result with no duplicates', async () => {
    const query = { starttime: iso(T0 + 100 * day), noDuplicates: true, startProp: 't0', endProp: 't1' };
    const all = ids(await read(plain, query));
    expect(all.length).toBeGreaterThan(40);
    const pages: number[] = [];
    for (let offset = 0; offset < all.length + 37; offset += 37) {
      const page = ids(await read(plain, { ...query, limit: 37, offset }));
      expect(page.length).toBeLessThanOrEqual(37);
      pages.push(...page);
    }
    expect(pages).toEqual(all);
    expect(new Set(pages).size).toBe(pages.length);
    expect(ids(await read(plain, { ...query, limited: 'true' }))).toEqual(all.slice(0, 3));
    expect(ids(await read(grouped, { limit: 0 }))).toEqual([1]);
    expect(ids(await read(grouped, { limit: -5 }))).toEqual([1]);
    expect(ids(await read(grouped, { limit: 99999999 })).length).toBe(400);
    expect(ids(await read(grouped, { offset: 100000 }))).toEqual([]);
  });
});

describe('keyset reads: short statements by id range, and `after`', () => {
  /** The ids of a read made of statements of at most `rows` features over `span` ids. */
  async function chunkedIds(ds: Geodataset, query: Record<string, unknown>, rows: number, span: number) {
    const f = await resolveReadFilters(db.sql, parseReadFilters(getInput(query)));
    const out: number[] = [];
    let statements = 0;
    for await (const c of featureChunks(db.sql, ds, f, parseGeojsonOptions(getInput(query)), {
      rows,
      span,
    })) {
      out.push(...JSON.parse(`[${c.text}]`).map((x: any) => x.properties._.idx as number));
      expect(c.rows).toBeLessThanOrEqual(rows);
      statements++;
    }
    return { ids: out, statements };
  }

  it('every filter case: small chunks and id ranges answer what the model says', async () => {
    for (const [name, query, model] of cases) {
      const got = await chunkedIds(grouped, query, 7, 13);
      expect(got.ids, name).toEqual(expectedIds(rows, model, true));
    }
    const whole = await chunkedIds(grouped, {}, 7, 13);
    expect(whole.ids).toEqual(rows.map((r) => r.id));
    expect(whole.statements).toBeGreaterThanOrEqual(400 / 7);
  });

  it('a recreate between two statements of a read makes it a 503, never a mix of two generations', async () => {
    const name = uniqueName('gdr_swap');
    const fc = (n: number, tag: string) => ({
      type: 'FeatureCollection',
      features: Array.from({ length: n }, (_, i) => ({
        type: 'Feature',
        geometry: { type: 'Point', coordinates: [i / 100, 0] },
        properties: { tag },
      })),
    });
    await recreateGeodataset(db, fc(30, 'old'), { name });
    try {
      const ds = await requireDataset(db.sql, name);
      const chunks = featureChunks(db.sql, ds, parseReadFilters({}), { offset: 0 }, { rows: 10, span: 10 });
      const first = await chunks.next();
      expect(first.done).toBe(false);
      await recreateGeodataset(db, fc(30, 'new'), { name });
      const rest: string[] = [];
      const err = await (async () => {
        for await (const c of chunks) rest.push(c.text);
      })().catch((e) => e);
      expect(err?.statusCode).toBe(503);
      expect(err.message).toMatch(/replaced while it was read/);
      expect(rest.join(',')).not.toMatch(/"new"/);
      // Read again: the new generation, whole.
      const again = await read(await requireDataset(db.sql, name), {});
      expect(again.features.map((f) => f.properties.tag)).toEqual(Array(30).fill('new'));
    } finally {
      const [row] = await db.sql`select table_name from geodatasets where name = ${name}`;
      if (row) await db.sql.unsafe(`drop table if exists ${row.table_name as string}`);
      await db.sql`delete from geodatasets where name = ${name}`;
    }
  });

  it('limit and offset across chunks; `after` continues by key', async () => {
    const query = { starttime: iso(T0 + 100 * day), noDuplicates: true, startProp: 't0', endProp: 't1' };
    const all = ids(await read(plain, query));
    expect(all.length).toBeGreaterThan(40);
    expect((await chunkedIds(plain, { ...query, limit: 30, offset: 5 }, 7, 13)).ids).toEqual(
      all.slice(5, 35),
    );
    const pages: number[] = [];
    let after = 0;
    for (;;) {
      const page = ids(await read(plain, { ...query, limit: 37, after }));
      pages.push(...page);
      if (page.length < 37) break;
      after = page[page.length - 1];
    }
    expect(pages).toEqual(all);
    expect(ids(await read(plain, { ...query, after: all[9], limit: 5, offset: 2 }))).toEqual(
      all.slice(12, 17),
    );
    expect(ids(await read(plain, { after: 400 }))).toEqual([]);
    expect(ids(await read(grouped, { after: 398 }))).toEqual([399, 400]);
    // With stats (one statement over the matched set), `after` narrows the features, never the groups.
    const withStats = await read(grouped, { stats: 'n', after: 390 });
    expect(ids(withStats)).toEqual([391, 392, 393, 394, 395, 396, 397, 398, 399, 400]);
    expect(withStats.features[0].properties._.stats).toEqual(
      (await read(grouped, { stats: 'n', id: 391 })).features[0].properties._.stats,
    );
  });
});

describe('extents counted in id ranges', () => {
  it('ranges of 7 ids store exactly the extents of one pass', async () => {
    const stored = async (ds: Geodataset) =>
      (
        await db.sql`select extent_bbox, time_min, time_max, property_types from geodatasets where id = ${ds.id}`
      )[0];
    await updateExtents(db.sql, grouped, 0, false, 1_000_000);
    const whole = await stored(grouped);
    expect(Object.keys(whole.property_types).length).toBeGreaterThan(3);
    await updateExtents(db.sql, grouped, 0, false, 7);
    expect(await stored(grouped)).toEqual(whole);
    await db.sql`update geodatasets set property_types = null, extent_bbox = null where id = ${grouped.id}`;
    await updateExtents(db.sql, grouped, 0, false, 13);
    expect(await stored(grouped)).toEqual(whole);
  });
});

describe('stats: per group, over the whole matched set before paging', () => {
  function expectedStats(ds: 'grouped' | 'plain', model: ModelParams, fields: string[]) {
    const matched = new Set(expectedIds(rows, { ...model, noDuplicates: false }, ds === 'grouped'));
    const groups = new Map<string, Row[]>();
    for (const r of rows) {
      if (!matched.has(r.id)) continue;
      const k = groupKey(r, ds === 'grouped');
      groups.set(k, [...(groups.get(k) ?? []), r]);
    }
    return (r: Row) => {
      const members = groups.get(groupKey(r, ds === 'grouped'))!;
      return Object.fromEntries(
        fields.map((f) => [
          f,
          stat(
            members.map((m) => numeric(at(m.feature.properties, f))).filter((v): v is number => v !== null),
          ),
        ]),
      );
    };
  }

  function compare(got: any, want: any) {
    for (const [field, s] of Object.entries(want as Record<string, any>)) {
      for (const k of ['min', 'max', 'avg', 'sum', 'stddev']) {
        if (s[k] === null) expect(got[field][k], `${field}.${k}`).toBeNull();
        else expect(got[field][k], `${field}.${k}`).toBeCloseTo(s[k], 6);
      }
    }
  }

  for (const ds of ['grouped', 'plain'] as const) {
    it(`${ds}: stats with paging and noDuplicates describe the whole group`, async () => {
      const model: ModelParams = { from: T0 + 60 * day };
      const query: Record<string, unknown> = { starttime: iso(T0 + 60 * day), stats: 'n,nested.a.b,s' };
      if (ds === 'plain') Object.assign(query, { startProp: 't0', endProp: 't1' });
      const want = expectedStats(ds, model, ['n', 'nested.a.b', 's']);
      const dataset = ds === 'grouped' ? grouped : plain;
      for (const extra of [{}, { limit: 10, offset: 20 }, { noDuplicates: true, limit: 15 }]) {
        const fc = await read(dataset, { ...query, ...extra });
        expect(fc.features.length).toBeGreaterThan(0);
        for (const f of fc.features) {
          const r = rows[f.properties._.idx - 1];
          compare(f.properties._.stats, want(r));
          expect(f.properties._.stats.s).toEqual({
            min: null,
            max: null,
            avg: null,
            sum: null,
            stddev: null,
          });
        }
      }
      // a group with several numeric members exists, so the test can tell a group from a feature
      const fc = await read(dataset, query);
      expect(fc.features.some((f) => f.properties._.stats.n.min !== f.properties._.stats.n.max)).toBe(true);
    });
  }
});

describe('properties edge cases', () => {
  it('empty properties and a stored "_" property still get _.idx (and stats)', async () => {
    const ds = await createFixtureDataset(db, uniqueName('gdr_edge'), [
      { geometry: { type: 'Point', coordinates: [0, 0] }, properties: {} },
      { geometry: { type: 'Point', coordinates: [0, 0] }, properties: { _: 'mine', a: 1 } },
      { geometry: { type: 'Point', coordinates: [1, 1] }, properties: { a: '3', b: { c: [1, 2] } } },
    ]);
    try {
      const fc = await read(ds, {});
      expect(fc.features.map((f) => f.properties)).toEqual([
        { _: { idx: 1 } },
        { _: { idx: 2 }, a: 1 },
        { a: '3', b: { c: [1, 2] }, _: { idx: 3 } },
      ]);
      const withStats = await read(ds, { stats: 'a' });
      const one = { min: 1, max: 1, avg: 1, sum: 1, stddev: 0 };
      expect(withStats.features.map((f) => f.properties._)).toEqual([
        { idx: 1, stats: { a: one } },
        { idx: 2, stats: { a: one } },
        { idx: 3, stats: { a: { min: 3, max: 3, avg: 3, sum: 3, stddev: 0 } } },
      ]);
      const dedup = await read(ds, { noDuplicates: true, stats: 'a' });
      expect(ids(dedup)).toEqual([2, 3]);
    } finally {
      await dropFixtureDataset(db, ds);
    }
  });
});

describe('spatialFilter at the edges of the map', () => {
  it('finds points across the antimeridian and around a pole, as haversine says', async () => {
    const pts: [number, number][] = [];
    for (let i = 0; i < 40; i++) {
      pts.push([179.5 + (i % 10) * 0.11 - (i % 10 > 4 ? 360 : 0), -20 + Math.floor(i / 10) * 0.3]);
      pts.push([((i * 37) % 360) - 180, 88.5 + (i % 7) * 0.2]);
    }
    const ds = await createFixtureDataset(
      db,
      uniqueName('gdr_edges'),
      pts.map(([x, y]) => ({ geometry: { type: 'Point', coordinates: [x, y] }, properties: {} })),
    );
    try {
      for (const [lat, lng, r] of [
        [-19.6, 179.95, 90000],
        [-19.6, -179.95, 90000],
        [89.7, 10, 160000],
        [89.99, -170, 60000],
      ]) {
        const want = pts
          .map(([x, y], i) => ({ id: i + 1, d: haversine(lat, lng, y, x) }))
          .filter((p) => {
            expect(Math.abs(p.d - r) / r).toBeGreaterThan(1e-4);
            return p.d <= r;
          })
          .map((p) => p.id);
        expect(want.length).toBeGreaterThan(0);
        expect(ids(await read(ds, { spatialFilter: `${lat},${lng},${r}` }))).toEqual(want);
      }
    } finally {
      await dropFixtureDataset(db, ds);
    }
  });
});

describe('custom formats that do parse', () => {
  const cases: [string, string, string][] = [
    ['2024-04-10T13:05:00Z', 'YYYY-MM-DD"T"HH24:MI:SS"Z"', '2024-04-10T13:05:00.000Z'],
    ['apr 7 2024', 'Mon DD YYYY', '2024-04-07T00:00:00.000Z'],
    ['April 7, 2024 15h', 'Month DD, YYYY HH24"h"', '2024-04-07T15:00:00.000Z'],
    ['2024.099', 'YYYY.DDD', '2024-04-08T00:00:00.000Z'],
  ];
  for (const [text, format, iso] of cases) {
    it(`${format} reads ${text} in UTC`, async () => {
      const f = await resolveReadFilters(db.sql, parseReadFilters({ starttime: text, format }));
      expect(f.time?.start).toBe(iso);
    });
  }
  for (const [text, format] of [
    ['2024-01-01T13:00:00Z', 'YYYY-MM-DDTHH:MI:SSZ '],
    ['2024-01-01 13:00', 'YYYY-MM-DD HH:MI'],
    ['13/2024', 'MM/YYYY'],
    ['nonsense', 'YYYY'],
  ]) {
    it(`400 for ${text} with ${format}`, async () => {
      await expect(
        resolveReadFilters(db.sql, parseReadFilters({ starttime: text, format })),
      ).rejects.toMatchObject({
        statusCode: 400,
      });
    });
  }
});
