import { afterAll, describe, expect, it } from 'vitest';
import { getDb } from '#lib/db/index.ts';
import { findDataset, requireDataset } from '#lib/geodatasets/catalog.ts';
import { updateExtents } from '#lib/geodatasets/extents.ts';
import { appendGeodataset, recreateGeodataset } from '#lib/geodatasets/write/write.ts';
import { uniqueName } from '../helpers.ts';

const db = getDb();

function pt(lon: number, lat: number, properties: Record<string, unknown> | null = {}) {
  return { type: 'Feature', geometry: { type: 'Point', coordinates: [lon, lat] }, properties };
}
const fc = (features: unknown[]) => ({ type: 'FeatureCollection', features });

async function rows(name: string) {
  const ds = await requireDataset(db.sql, name);
  return db.sql.unsafe(
    `select id, ST_AsText(geom) as wkt, properties::text as props, start_time, end_time, group_id, feature_id
     from ${ds.table} order by id`,
  );
}

afterAll(async () => {
  // the shared pool is closed by the worker's exit
});

describe('recreate and append (lib)', () => {
  it('creates a dataset with rows, derived columns and catalog values', async () => {
    const name = uniqueName('gdw');
    const res = await recreateGeodataset(
      db,
      fc([
        pt(1, 2, { t: '2024-01-02T03:04:05Z', e: 1704164645000, g: 'a', h: 7, id: 'x' }),
        pt(3, 4, { t: 'not a time', g: 'b', nested: { k: 'v' } }),
      ]),
      { name, startProp: 't', endProp: 'e', groupIdProp: 'g,h', featureIdProp: 'id', filename: 'f.json' },
    );
    expect(res).toEqual({ name, num_features: 2, added: 2 });
    const r = await rows(name);
    expect(r.map((x) => x.wkt)).toEqual(['POINT(1 2)', 'POINT(3 4)']);
    expect(r[0].start_time.toISOString()).toBe('2024-01-02T03:04:05.000Z');
    expect(r[0].end_time.toISOString()).toBe(new Date(1704164645000).toISOString());
    expect(r[0].group_id).toBe('a,7');
    expect(r[0].feature_id).toBe('x');
    expect(r[1].start_time).toBeNull();
    expect(r[1].end_time).toBeNull();
    expect(r[1].group_id).toBe('b,');
    expect(r[1].feature_id).toBeNull();
    const ds = (await findDataset(db.sql, name))!;
    expect(ds.numFeatures).toBe(2);
    expect(ds.propertiesType).toBe('jsonb');
    expect(ds.filename).toBe('f.json');
    expect(ds.groupIdProp).toBe('g,h');
    const e = 1704164645000;
    expect(ds.fieldStats).toEqual({
      h: { type: 'number', min: 7, max: 7, sum: 7, sumsq: 49, count: 1 },
      e: { type: 'number', min: e, max: e, sum: e, sumsq: e * e, count: 1 },
    });
  });

  it('appends and widens stats', async () => {
    const name = uniqueName('gdw');
    await recreateGeodataset(db, fc([pt(0, 0, { v: 1 })]), { name });
    const v1 = (await findDataset(db.sql, name))!.version;
    const res = await appendGeodataset(db, fc([pt(1, 1, { v: '3' }), pt(2, 2, { v: '3x' })]), { name });
    expect(res).toEqual({ name, num_features: 3, added: 2 });
    const ds = (await findDataset(db.sql, name))!;
    expect(ds.version).toBe(v1 + 1);
    expect(ds.fieldStats).toEqual({ v: { type: 'number', min: 1, max: 3, sum: 4, sumsq: 10, count: 2 } });
  });
});

describe('point batches by COPY (Db.copyIn) store what INSERT stores', () => {
  const tricky = () =>
    fc([
      pt(1e-7, -2.5, { s: 'tab\there, newline\nthere, back\\slash \\N, cr\r', g: 'g\\1\t', n: 1e21 }),
      pt(10, 20.000001, { z: true }),
      pt(-179.999999, 89.5, { arr: [1, 'two', null], obj: { k: 'v' }, nul: null, t: '2024-03-01T00:00:00Z' }),
      pt(0, 0, null),
      pt(5, 6, { uni: 'é 漢字 \u2028', t: '2023-12-31T23:59:59.5Z', id: 'a\\b' }),
    ]);
  const catalog = async (name: string) =>
    (
      await db.sql`select extent_bbox, time_min, time_max, property_types, field_stats, num_features
        from geodatasets where name = ${name}`
    )[0];
  const opts = { startProp: 't', groupIdProp: 'g', featureIdProp: 'id' };

  it('the same rows, extents and stats either way, and the extents a recount from the rows gives', async () => {
    const a = uniqueName('gdcopy');
    const b = uniqueName('gdins');
    // On the embedded database there is no COPY: both writes insert, and the comparison with the recount stays.
    await recreateGeodataset(db, tricky(), { name: a, ...opts }, { copy: db.copyIn === true });
    await recreateGeodataset(db, tricky(), { name: b, ...opts }, { copy: false });
    const ra = await rows(a);
    expect(ra.map(({ id, ...r }) => r)).toEqual((await rows(b)).map(({ id, ...r }) => r));
    expect(JSON.parse(ra[0].props)).toEqual((tricky().features[0] as { properties: unknown }).properties);
    expect(ra[0].group_id).toBe('g\\1\t');
    expect(ra[1].wkt).toBe('POINT(10 20.000001)');
    expect(ra[4].feature_id).toBe('a\\b');
    const ca = await catalog(a);
    expect(ca).toEqual(await catalog(b));
    expect(ca.property_types.arr).toEqual({ array: 1 });
    expect(ca.property_types.nul).toBeUndefined();
    // The counts made as the rows went in equal the database's own count of the stored rows.
    const ds = await requireDataset(db.sql, a);
    await updateExtents(db.sql, ds);
    expect(await catalog(a)).toEqual(ca);
    // An append widens them the same way.
    await appendGeodataset(db, tricky(), { name: a, ...opts }, { copy: db.copyIn === true });
    const widened = await catalog(a);
    await updateExtents(db.sql, ds);
    expect(await catalog(a)).toEqual(widened);
    expect(widened.property_types.z).toEqual({ boolean: 2 });
  });

  it('a value the database refuses is a 400 naming the feature (COPY) or its batch, and nothing is kept', async () => {
    const name = uniqueName('gdcopy');
    await expect(
      recreateGeodataset(db, fc([pt(1, 2), pt(3, 4, { bad: 'nul \u0000 char' })]), { name }),
    ).rejects.toMatchObject({
      statusCode: 400,
      message: expect.stringMatching(
        db.copyIn ? /^Feature 1: the database refused it/ : /^Features 0-1: the database refused them/,
      ),
    });
    expect(await findDataset(db.sql, name)).toBeUndefined();
  });

  it('points streamed through COPY around other geometries keep the file order, and a refusal deep in a stream names its feature', async () => {
    const line = {
      type: 'LineString',
      coordinates: [
        [0, 0],
        [1, 1],
      ],
    };
    const run = (from: number, n: number) =>
      Array.from({ length: n }, (_, i) => pt(i % 90, 0, { i: from + i }));
    const features = [
      ...run(0, 3),
      { type: 'Feature', geometry: line, properties: { i: 3 } },
      ...run(4, 20_000),
      { type: 'Feature', geometry: line, properties: { i: 20_004 } },
      ...run(20_005, 2),
    ];
    const name = uniqueName('gdorder');
    await recreateGeodataset(db, fc(features), { name });
    const ds = await requireDataset(db.sql, name);
    const rows = await db.sql.unsafe(`select (properties->>'i')::int as i from ${ds.table} order by id`);
    expect(rows.map((r) => r.i)).toEqual(features.map((_, i) => i));
    // The bad value is 15,000 points into the second run, with many chunks of it in flight.
    const bad = structuredClone(features) as { properties: Record<string, unknown> }[];
    bad[15_004].properties.bad = 'nul \u0000 char';
    const broken = uniqueName('gdorder');
    await expect(recreateGeodataset(db, fc(bad), { name: broken })).rejects.toMatchObject({
      statusCode: 400,
      message: expect.stringMatching(
        db.copyIn
          ? /^Feature 15004: the database refused it/
          : /^Features \d+-\d+: the database refused them/,
      ),
    });
    expect(await findDataset(db.sql, broken)).toBeUndefined();
    // Points and lines one after the other: a statement per batch, never one per feature, in file order.
    const mixed = Array.from({ length: 1_000 }, (_, i) =>
      i % 2 ? { type: 'Feature', geometry: line, properties: { i } } : pt(i % 90, 0, { i }),
    );
    let statements = 0;
    const alternating = uniqueName('gdorder');
    await recreateGeodataset(
      db,
      fc(mixed),
      { name: alternating },
      {
        afterBatch: () => {
          statements++;
        },
      },
    );
    expect(statements).toBeLessThanOrEqual(10);
    const ads = await requireDataset(db.sql, alternating);
    const arows = await db.sql.unsafe(`select (properties->>'i')::int as i from ${ads.table} order by id`);
    expect(arows.map((r) => r.i)).toEqual(mixed.map((_, i) => i));
    // The connection that carried the refused COPY serves the next write.
    await appendGeodataset(db, fc(run(0, 2)), { name });
    expect((await requireDataset(db.sql, name)).numFeatures).toBe(features.length + 2);
  });
});
