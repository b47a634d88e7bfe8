import { afterAll, describe, expect, it } from 'vitest';
import { getDb } from '#lib/db/index.ts';
import { findDataset, requireDataset } from '#lib/geodatasets/catalog.ts';
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
