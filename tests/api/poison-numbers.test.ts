import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { getDb } from '#lib/db/index.ts';
import { findDataset } from '#lib/geodatasets/catalog.ts';
import { recomputeMissingStats, recomputeStats } from '#lib/geodatasets/manage.ts';
import { recreateGeodataset } from '#lib/geodatasets/write/write.ts';
import { decodeTile } from '../fixtures/tiles.ts';
import { adminToken, apiUrl, call, login, uniqueName } from '../helpers.ts';

/**
 * Poison numbers in stored data (docs/contract.md#5-edge-cases-decided: skipped, never an error) and huge numbers in integer
 * request parameters (400, never 500). docs/geodatasets-read.md, "Poison numbers".
 */
const db = getDb();
const name = uniqueName('gd_poison');
const created: string[] = [name];

const point = (x: number, props: Record<string, unknown>) => ({
  type: 'Feature',
  geometry: { type: 'Point', coordinates: [x, 0] },
  properties: props,
});

/** Stored properties no JSON.stringify can produce: numbers beyond float8 and too large to square. */
const POISON = [
  '{"v": 1e999, "g": "a"}',
  '{"v": "1e999", "g": "a"}',
  '{"v": "-1e999", "g": "a"}',
  '{"v": 1e200, "g": "a"}',
  '{"v": "1e-999", "g": "a"}',
  '{"v": "1e99999999", "g": "a"}',
  `{"v": "${'9'.repeat(2000)}", "g": "a"}`,
  '{"meta": {"d": "1e999"}, "g": "a"}',
];

async function dropAll() {
  for (const n of created) {
    const [row] = await db.sql`select table_name from geodatasets where name = ${n}`;
    if (!row) continue;
    await db.sql.unsafe(`drop table if exists ${row.table_name as string}`);
    await db.sql`delete from geodatasets where name = ${n}`;
  }
}

beforeAll(async () => {
  await recreateGeodataset(
    db,
    {
      type: 'FeatureCollection',
      features: [point(1, { v: 2, g: 'a', meta: { d: 1 } }), point(2, { v: '4', g: 'a', meta: { d: 3 } })],
    },
    { name, groupIdProp: 'g' },
  );
  const ds = (await findDataset(db.sql, name))!;
  for (const p of POISON) {
    // `$1::text::jsonb`: the text parsed as JSON (a bare `$1::jsonb` would store a JSON string).
    await db.sql.unsafe(
      `insert into ${ds.table} (geom, properties, group_id)
       values (ST_SetSRID(ST_MakePoint(3, 0), 4326), $1::text::jsonb, 'a')`,
      [p],
    );
  }
  const [{ n }] = await db.sql.unsafe(
    `select count(*)::int as n from ${ds.table} where jsonb_typeof(properties) = 'object'`,
  );
  expect(n).toBe(2 + POISON.length);
});

afterAll(dropAll);

describe('poison numbers are skipped, never an error', () => {
  it('per-group stats', async () => {
    const res = await call('GET', `/api/geodatasets/get?layer=${name}&type=geojson&stats=v,meta.d&limit=1`);
    expect(res.status, res.text).toBe(200);
    const stats = res.body.features[0].properties._.stats;
    expect(stats.v).toMatchObject({ min: 0, max: 4, sum: 6, avg: 2 });
    expect(stats['meta.d']).toMatchObject({ min: 1, max: 3, sum: 4 });
  });

  it('numeric filters (geojson and tiles)', async () => {
    const res = await call(
      'GET',
      `/api/geodatasets/get?layer=${name}&type=geojson&filters=v%2B>%2Bnumber%2B1`,
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body.features.map((f: any) => f.properties.v)).toEqual([2, '4']);
    const tile = await call(
      'GET',
      `/api/geodatasets/get?layer=${name}&type=mvt&x=0&y=0&z=0&filters=v%2B<%2Bnumber%2B3`,
    );
    expect([200, 204]).toContain(tile.status);
  });

  it('recompute_stats and the hourly recompute, which continues past a failing dataset', async () => {
    await recomputeStats(db, name);
    expect((await findDataset(db.sql, name))!.fieldStats).toEqual({
      v: { type: 'number', min: 0, max: 4, sum: 6, sumsq: 20, count: 3 },
      'meta.d': { type: 'number', min: 1, max: 3, sum: 4, sumsq: 10, count: 2 },
    });
    // a dataset whose table is gone fails; one sorted after it still gets its stats
    const broken = uniqueName('a_gd_broken');
    const later = uniqueName('z_gd_later');
    created.push(broken, later);
    for (const n of [broken, later]) {
      await recreateGeodataset(
        db,
        { type: 'FeatureCollection', features: [point(0, { q: 1 })] },
        { name: n },
      );
    }
    const b = (await findDataset(db.sql, broken))!;
    await db.sql.unsafe(`drop table ${b.table}`);
    // Other test files run the hourly recompute too (over every dataset without stats): in one of three
    // tries, this run is the one that recomputes ours, past the broken one.
    let done = { recomputed: [] as string[], failed: [] as string[] };
    for (let i = 0; i < 3 && !(done.recomputed.includes(name) && done.recomputed.includes(later)); i++) {
      await db.sql`update geodatasets set field_stats = null where name in (${broken}, ${later}, ${name})`;
      done = await recomputeMissingStats(db);
    }
    expect(done.failed).toContain(broken);
    expect(done.recomputed).toEqual(expect.arrayContaining([name, later]));
    expect((await findDataset(db.sql, later))!.fieldStats).toEqual({
      q: { type: 'number', min: 1, max: 1, sum: 1, sumsq: 1, count: 1 },
    });
    await db.sql`delete from geodatasets where name = ${broken}`;
  });
});

describe('huge integers in stored properties', () => {
  it('are encoded in vector tiles as doubles, never a 500 (both encoders)', async () => {
    const big = uniqueName('gd_bigints');
    created.push(big);
    const props = { big: 1e20, neg: -1e20, huge: 1e300, top: 2 ** 64, safe: 2 ** 53 - 1, small: 5 };
    await recreateGeodataset(db, { type: 'FeatureCollection', features: [point(1, props)] }, { name: big });
    const res = await fetch(`${apiUrl()}/api/geodatasets/get?layer=${big}&type=mvt&x=0&y=0&z=0`);
    expect(res.status, await res.clone().text()).toBe(200);
    const [f] = decodeTile(Buffer.from(await res.arrayBuffer()))[big].features;
    expect(f.properties).toEqual(props);
  });
});

describe('huge numbers in integer parameters are 400', () => {
  const huge = ['1e308', '99999999999999999999', '2147483648'];
  it('configure get and upsert version', async () => {
    const mission = uniqueName('M_huge');
    const add = await call('POST', '/api/configure/add', { token: adminToken(), body: { mission } });
    expect(add.status, add.text).toBe(201);
    for (const v of huge) {
      const g = await call('GET', `/api/configure/get?mission=${mission}&version=${v}`, {
        token: adminToken(),
      });
      expect(g.status, g.text).toBe(400);
      expect(g.body.message).toMatch(/version/);
      const u = await call('POST', '/api/configure/upsert', {
        token: adminToken(),
        body: `{"mission": "${mission}", "version": ${v}}`,
      });
      expect(u.status, u.text).toBe(400);
      expect(u.body.message).toMatch(/version/);
    }
    await call('POST', '/api/configure/destroy', { token: adminToken(), body: { mission } });
  });

  it('geodatasets get, aggregations and tiles', async () => {
    for (const v of ['1e308', '99999999999999999999', '-99999999999999999999']) {
      for (const p of ['limit', 'offset', 'id']) {
        const r = await call('GET', `/api/geodatasets/get?layer=${name}&type=geojson&${p}=${v}`);
        expect(r.status, `${p}=${v} ${r.text}`).toBe(400);
        expect(r.body.message).toMatch(new RegExp(`'${p}'`));
      }
      for (const p of ['x', 'y', 'z']) {
        const q = { x: '0', y: '0', z: '0', [p]: v };
        const r = await call('GET', `/api/geodatasets/get?layer=${name}&type=mvt&x=${q.x}&y=${q.y}&z=${q.z}`);
        expect(r.status, `${p}=${v} ${r.text}`).toBe(400);
      }
      const a = await call('GET', `/api/geodatasets/aggregations?layer=${name}&limit=${v}`);
      expect(a.status, a.text).toBe(400);
    }
  });

  it('longtermtoken period', async () => {
    const { username, password } = inject('admin');
    const cookie = await login(username, password);
    for (const period of [1e308, '99999999999999999999', 9e15]) {
      const r = await call('POST', '/api/longtermtoken/generate', { cookie, body: { period } });
      expect(r.status, r.text).toBe(400);
      expect(r.body.message).toMatch(/period/);
    }
  });
});
