import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '#lib/db/index.ts';
import { recreateGeodataset } from '#lib/geodatasets/write/write.ts';
import { decodeTile } from '../fixtures/tiles.ts';
import { apiUrl, call, uniqueName } from '../helpers.ts';

/**
 * Per-group `stats` of `GET /get` as MMGIS's own API specs ask them (docs/geodatasets-read.md, "stats";
 * docs/mmgis-compatibility.md, "Per-group statistics"): `id` narrows the features, never the statistics;
 * the rows without a group id are one group for `stats` and for `noDuplicates`; an empty or long list of
 * fields is answered, with nulls where no feature holds a number.
 */
const db = getDb();
const tracks = uniqueName('gd_stats');
const groupless = uniqueName('gd_stats_ng');
const nogroups = uniqueName('gd_stats_geom');

const point = (properties: Record<string, unknown>, at = [-122.42, 37.78]) => ({
  type: 'Feature',
  geometry: { type: 'Point', coordinates: at },
  properties,
});

beforeAll(async () => {
  // track A: elev 1, 2, "3"; track B: elev 10, "not_a_number", none.
  await recreateGeodataset(
    db,
    {
      type: 'FeatureCollection',
      features: [
        point({ track: 'A', elev: 1, meta: { depth: 5 } }),
        point({ track: 'A', elev: 2, meta: { depth: 7 } }),
        point({ track: 'A', elev: '3' }),
        point({ track: 'B', elev: 10, huge: '1e999' }),
        point({ track: 'B', elev: 'not_a_number' }),
        point({ track: 'B' }),
      ],
    },
    { name: tracks, groupIdProp: 'track' },
  );
  // Two features without a track, one with; then one more without.
  await recreateGeodataset(
    db,
    {
      type: 'FeatureCollection',
      features: [
        point({ elev: 4 }, [0, 0]),
        point({ elev: 6 }, [1, 1]),
        point({ track: 'A', elev: 100 }, [2, 2]),
        point({ track: null, elev: 8 }, [3, 3]),
      ],
    },
    { name: groupless, groupIdProp: 'track' },
  );
  // No groupIdProp: groups are identical geometries.
  await recreateGeodataset(
    db,
    {
      type: 'FeatureCollection',
      features: [point({ elev: 1 }, [0, 0]), point({ elev: 3 }, [0, 0]), point({ elev: 50 }, [1, 1])],
    },
    { name: nogroups },
  );
});

afterAll(async () => {
  for (const name of [tracks, groupless, nogroups]) {
    const [row] = await db.sql`select table_name from geodatasets where name = ${name}`;
    if (row) {
      await db.sql.unsafe(`drop table if exists ${row.table_name as string}`);
      await db.sql`delete from geodatasets where name = ${name}`;
    }
  }
});

const get = (layer: string, qs: string) => call('GET', `/api/geodatasets/get/${layer}?type=geojson&${qs}`);

const trackA = { min: 1, max: 3, avg: 2, sum: 6 };

describe('id narrows the features, never the statistics', () => {
  it('one feature of track A carries all of track A', async () => {
    const all = await get(tracks, 'stats=elev');
    expect(all.status, all.text).toBe(200);
    const ofA = all.body.features.filter((f: any) => f.properties.track === 'A');
    expect(ofA).toHaveLength(3);
    for (const f of ofA) {
      const res = await get(tracks, `stats=elev&id=${f.properties._.idx}`);
      expect(res.status, res.text).toBe(200);
      expect(res.body.features).toHaveLength(1);
      expect(res.body.features[0].properties._.idx).toBe(f.properties._.idx);
      expect(res.body.features[0].properties._.stats.elev).toMatchObject(trackA);
      expect(res.body.features[0].properties._.stats.elev.stddev).toBeCloseTo(Math.sqrt(2 / 3), 10);
    }
  });

  it('with noDuplicates the feature asked for is still answered, not its group’s kept one', async () => {
    const all = await get(tracks, 'stats=elev');
    const first = all.body.features.find((f: any) => f.properties.track === 'A').properties._.idx;
    for (const qs of [`stats=elev&noDuplicates=true&id=${first}`, `noDuplicates=true&id=${first}`]) {
      const res = await get(tracks, qs);
      expect(res.status, res.text).toBe(200);
      expect(res.body.features.map((f: any) => f.properties._.idx)).toEqual([first]);
    }
    const stats = await get(tracks, `stats=elev&noDuplicates=true&id=${first}`);
    expect(stats.body.features[0].properties._.stats.elev).toMatchObject(trackA);
  });

  it('an id outside the other filters answers nothing', async () => {
    const all = await get(tracks, 'stats=elev');
    const ofB = all.body.features.find((f: any) => f.properties.track === 'B').properties._.idx;
    const res = await get(tracks, `stats=elev&group_id=A&id=${ofB}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.features).toEqual([]);
  });
});

describe('the rows without a group id are one group', () => {
  it('stats: each groupless feature reports the groupless ones', async () => {
    const all = await get(groupless, 'stats=elev');
    expect(all.status, all.text).toBe(200);
    expect(all.body.features).toHaveLength(4);
    for (const f of all.body.features) {
      const expected =
        f.properties.track === 'A'
          ? { min: 100, max: 100, avg: 100, sum: 100, stddev: 0 }
          : { min: 4, max: 8, avg: 6, sum: 18 };
      expect(f.properties._.stats.elev).toMatchObject(expected);
    }
    const first = all.body.features.find((f: any) => f.properties.track == null).properties._.idx;
    const one = await get(groupless, `stats=elev&id=${first}`);
    expect(one.body.features).toHaveLength(1);
    expect(one.body.features[0].properties._.stats.elev).toMatchObject({ min: 4, max: 8, avg: 6, sum: 18 });
  });

  it('noDuplicates keeps one groupless feature (the highest id), with and without stats', async () => {
    for (const qs of ['noDuplicates=true', 'noDuplicates=true&stats=elev']) {
      const res = await get(groupless, qs);
      expect(res.status, res.text).toBe(200);
      const kept = res.body.features.map((f: any) => [f.properties.track ?? null, f.properties.elev]);
      expect(kept).toEqual([
        ['A', 100],
        [null, 8],
      ]);
    }
    const withStats = await get(groupless, 'noDuplicates=true&stats=elev');
    expect(withStats.body.features[1].properties._.stats.elev).toMatchObject({ min: 4, max: 8, sum: 18 });
  });

  it('noDuplicates in a tile keeps the same features', async () => {
    const res = await fetch(
      `${apiUrl()}/api/geodatasets/get/${groupless}?type=mvt&x=0&y=0&z=0&noDuplicates=true`,
    );
    expect(res.status, await res.clone().text()).toBe(200);
    const kept = decodeTile(Buffer.from(await res.arrayBuffer()))[groupless].features;
    expect(kept.map((f) => f.properties.elev)).toEqual([100, 8]);
  });

  it('without a groupIdProp the groups stay identical geometries', async () => {
    const res = await get(nogroups, 'stats=elev');
    expect(res.status, res.text).toBe(200);
    const byElev = Object.fromEntries(
      res.body.features.map((f: any) => [f.properties.elev, f.properties._.stats.elev]),
    );
    expect(byElev[1]).toMatchObject({ min: 1, max: 3, sum: 4 });
    expect(byElev[3]).toMatchObject({ min: 1, max: 3, sum: 4 });
    expect(byElev[50]).toMatchObject({ min: 50, max: 50, sum: 50 });
    const dedup = await get(nogroups, 'noDuplicates=true');
    expect(dedup.body.features.map((f: any) => f.properties.elev)).toEqual([3, 50]);
  });
});

describe('an empty or long list of fields is answered', () => {
  const none = { min: null, max: null, avg: null, sum: null, stddev: null };

  it('stats=,,, answers every feature without statistics', async () => {
    for (const qs of ['stats=,,,', 'stats=', 'stats=%20,%20', 'stats[]=&stats[]=']) {
      const res = await get(tracks, qs);
      expect(res.status, `${qs}: ${res.text}`).toBe(200);
      expect(res.body.features).toHaveLength(6);
      for (const f of res.body.features) expect(f.properties._.stats).toBeUndefined();
    }
  });

  it('50 unknown fields: 200, every one null', async () => {
    const fields = Array.from({ length: 50 }, (_, i) => `f${i}`);
    const res = await get(tracks, `stats=${fields.join(',')}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.features).toHaveLength(6);
    for (const f of res.body.features) {
      expect(Object.keys(f.properties._.stats).sort()).toEqual([...fields].sort());
      for (const name of fields) expect(f.properties._.stats[name]).toEqual(none);
    }
  });

  it('100 fields, known and unknown, long and nested: 200, nulls where no feature holds a number', async () => {
    const fields = Array.from({ length: 97 }, (_, i) => `${'x'.repeat(200)}.${'y'.repeat(50)}${i}`).concat(
      'elev',
      'meta.depth',
      'huge',
    );
    // 25 KB of names: a JSON body (a URL that long is past what a gateway or Node takes).
    const res = await call('POST', '/api/geodatasets/get', {
      body: { layer: tracks, type: 'geojson', stats: fields },
    });
    expect(res.status, res.text).toBe(200);
    const byTrack = Object.fromEntries(
      res.body.features.map((f: any) => [f.properties.track, f.properties._.stats]),
    );
    expect(byTrack.A.elev).toMatchObject(trackA);
    expect(byTrack.A['meta.depth']).toMatchObject({ min: 5, max: 7, avg: 6, sum: 12 });
    expect(byTrack.B['meta.depth']).toEqual(none);
    expect(byTrack.B.huge).toEqual(none);
    expect(byTrack.B[fields[0]]).toEqual(none);
    expect(Object.keys(byTrack.A)).toHaveLength(100);
  });

  it('more than 100 distinct fields is 400 naming stats', async () => {
    const res = await get(tracks, `stats=${Array.from({ length: 101 }, (_, i) => `f${i}`).join(',')}`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: 'failure' });
    expect(res.body.message).toMatch(/stats/);
  });
});
