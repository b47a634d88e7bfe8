import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '#lib/db/index.ts';
import { findDataset } from '#lib/geodatasets/catalog.ts';
import { recomputeStats } from '#lib/geodatasets/manage.ts';
import { recreateGeodataset } from '#lib/geodatasets/write/write.ts';
import { call, uniqueName } from '../helpers.ts';

/**
 * The read path as the MMGIS clients use it (docs/geodatasets-read.md, "MMGIS clients"), and `_source`
 * with many paths (linear SQL).
 */
const db = getDb();
const name = uniqueName('gd_compat');
const T = Date.UTC(2024, 0, 1);

function feature(i: number) {
  const props: Record<string, any> = {
    name: `f${i}`,
    g: i % 2 === 0 ? 'even' : 'odd',
    fid: `F${i}`,
    v: i,
    t0: new Date(T + i * 3600_000).toISOString(),
    meta: { depth: i * 10, deep: { x: i } },
    n: {},
  };
  for (let k = 0; k < 60; k++) props.n[`p${k}`] = k * 1000 + i;
  if (i === 3) props.t1 = new Date(T + 100 * 3600_000).toISOString();
  return { type: 'Feature', geometry: { type: 'Point', coordinates: [i, i / 2] }, properties: props };
}
const features = Array.from({ length: 8 }, (_, i) => feature(i));

beforeAll(async () => {
  await recreateGeodataset(
    db,
    { type: 'FeatureCollection', features },
    { name, startProp: 't0', endProp: 't1', groupIdProp: 'g', featureIdProp: 'fid' },
  );
});

afterAll(async () => {
  const [row] = await db.sql`select table_name from geodatasets where name = ${name}`;
  if (row) {
    await db.sql.unsafe(`drop table if exists ${row.table_name as string}`);
    await db.sql`delete from geodatasets where name = ${name}`;
  }
});

const get = (qs: string) => call('GET', `/api/geodatasets/get?layer=${name}&${qs}`);

describe('_source with many paths', () => {
  it('answers 50 paths correctly, nested objects kept', async () => {
    const paths = Array.from({ length: 49 }, (_, k) => `n.p${k}`).concat('name');
    const res = await get(`type=geojson&_source=${paths.join(',')}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.features).toHaveLength(8);
    for (const [i, f] of res.body.features.entries()) {
      const n = Object.fromEntries(Array.from({ length: 49 }, (_, k) => [`p${k}`, k * 1000 + i]));
      const { _, ...rest } = f.properties;
      expect(rest).toEqual({ name: `f${i}`, n });
      expect(_.idx).toBe(i + 1);
    }
  });

  it('dedupes paths and refuses more than 100 distinct ones (400 naming _source)', async () => {
    const same = Array.from({ length: 300 }, () => 'name').join(',');
    const ok = await get(`_source=${same}`);
    expect(ok.status, ok.text).toBe(200);
    expect(Object.keys(ok.body.features[0].properties).sort()).toEqual(['_', 'name']);
    const many = Array.from({ length: 101 }, (_, k) => `x${k}`).join(',');
    const bad = await get(`_source=${many}`);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/_source/);
  });
});

describe('MMGIS client forms of GET /get', () => {
  it('answers GeoJSON without type', async () => {
    const res = await get('limit=2');
    expect(res.status, res.text).toBe(200);
    expect(res.body.type).toBe('FeatureCollection');
    expect(res.body.features).toHaveLength(2);
  });

  it('accepts repeated _source[]= and stats[]= parameters', async () => {
    const res = await get(
      '_source[]=name&_source[]=meta.depth&stats[]=v&stats[]=meta.depth&group_id=odd&limit=1',
    );
    expect(res.status, res.text).toBe(200);
    const p = res.body.features[0].properties;
    expect(p.name).toBe('f1');
    expect(p.meta).toEqual({ depth: 10 });
    expect(p.v).toBeUndefined();
    expect(Object.keys(p._.stats).sort()).toEqual(['meta.depth', 'v']);
    expect(p._.stats.v).toMatchObject({ min: 1, max: 7, sum: 16 });
  });

  it('_source group_id and feature_id give the derived values', async () => {
    const res = await get('_source=group_id,feature_id,name&limit=2');
    expect(res.status, res.text).toBe(200);
    const [a, b] = res.body.features.map((f: any) => f.properties);
    expect([a.group_id, a.feature_id, a.name]).toEqual(['even', 'F0', 'f0']);
    expect([b.group_id, b.feature_id]).toEqual(['odd', 'F1']);
  });

  it('properties._ carries start_time and end_time as epoch-millisecond strings', async () => {
    const res = await get('limit=4');
    const metas = res.body.features.map((f: any) => f.properties._);
    expect(metas[0]).toEqual({ idx: 1, start_time: String(T) });
    expect(metas[3]).toEqual({
      idx: 4,
      start_time: String(T + 3 * 3600_000),
      end_time: String(T + 100 * 3600_000),
    });
  });

  it('id narrows the features, not the per-group stats', async () => {
    const res = await get('group_id=odd&id=4&stats=v');
    expect(res.status, res.text).toBe(200);
    expect(res.body.features).toHaveLength(1);
    expect(res.body.features[0].properties._.idx).toBe(4);
    expect(res.body.features[0].properties._.stats.v).toMatchObject({ min: 1, max: 7, sum: 16, avg: 4 });
  });

  it('field_stats covers nested members as dotted paths (ingest and recompute agree)', async () => {
    const ingest = (await findDataset(db.sql, name))!.fieldStats!;
    expect(ingest['meta.depth']).toEqual({
      type: 'number',
      min: 0,
      max: 70,
      sum: 280,
      sumsq: 14000,
      count: 8,
    });
    expect(ingest['meta.deep.x']).toMatchObject({ min: 0, max: 7, count: 8 });
    expect(ingest.meta).toBeUndefined();
    await recomputeStats(db, name);
    expect((await findDataset(db.sql, name))!.fieldStats).toEqual(ingest);
  });

  it('search: operator and type, last, id + offset + orderBy, bbox', async () => {
    const search = async (body: Record<string, unknown>) => {
      const r = await call('POST', '/api/geodatasets/search', { body: { layer: name, ...body } });
      expect(r.status, r.text).toBe(200);
      return r.body.body.map((f: any) => f.properties._.idx);
    };
    expect(await search({ key: 'v', value: 5, operator: '>', type: 'number' })).toEqual([7, 8]);
    expect(await search({ key: 'v', value: '2$4', operator: 'in', type: 'number' })).toEqual([3, 5]);
    expect(await search({ key: 'name', value: 'F3', operator: 'like' })).toEqual([4]);
    expect(await search({ key: 'meta.depth', value: 30, operator: '<', type: 'number' })).toEqual([1, 2, 3]);
    expect(await search({ last: true })).toEqual([8]);
    expect(await search({ last: true, minx: 0, miny: 0, maxx: 4.5, maxy: 4.5 })).toEqual([5]);
    expect(await search({ id: 3, offset: 1 })).toEqual([4]);
    expect(await search({ id: 3, offset: -1 })).toEqual([2]);
    expect(await search({ id: 3, offset: 'first' })).toEqual([1]);
    expect(await search({ id: 3, offset: 'last' })).toEqual([8]);
    // orderBy: by meta.deep.x descending is not a thing; 'g' then id: even = 1,3,5,7; odd = 2,4,6,8
    expect(await search({ id: 7, offset: 1, orderBy: 'g' })).toEqual([2]);
    expect(await search({ id: 99, offset: 1 })).toEqual([]);
    const bad = await call('POST', '/api/geodatasets/search', {
      body: { layer: name, key: 'v', value: 'x', type: 'number', operator: '>' },
    });
    expect(bad.status).toBe(400);
    const op = await call('POST', '/api/geodatasets/search', {
      body: { layer: name, key: 'v', value: 1, operator: '~' },
    });
    expect(op.status).toBe(400);
    expect(op.body.message).toMatch(/'operator'/);
  });

  it('aggregations and bulk_aggregations also answer the MMGIS-shaped top-level aggregations', async () => {
    const one = await call('GET', `/api/geodatasets/aggregations?layer=${name}`);
    expect(one.status, one.text).toBe(200);
    expect(one.body.aggregations.g).toEqual({ type: 'string', aggs: { even: 4, odd: 4 } });
    expect(one.body.aggregations.v.type).toBe('number');
    expect(Object.values(one.body.aggregations.v.aggs)).toEqual(Array(8).fill(1));
    expect(one.body.body.aggregations.g).toEqual({ type: 'string', values: { even: 4, odd: 4 } });
    const bulk = await call('GET', `/api/geodatasets/bulk_aggregations?layers=${name},${name}`);
    expect(bulk.status, bulk.text).toBe(200);
    expect(bulk.body.aggregations.g).toEqual({ type: 'string', aggs: { even: 4, odd: 4 } });
    expect(bulk.body.body[name].total).toBe(8);
  });

  it('an unknown geodataset is 404 with "not found"', async () => {
    for (const res of [
      await call('GET', '/api/geodatasets/get?layer=no_such_layer_x&type=geojson'),
      await call('POST', '/api/geodatasets/search', {
        body: { layer: 'no_such_layer_x', key: 'a', value: 1 },
      }),
      await call('GET', '/api/geodatasets/aggregations?layer=no_such_layer_x'),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.message).toMatch(/not found/);
    }
  });
});
