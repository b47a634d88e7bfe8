import { describe, expect, it } from 'vitest';
import { getDb } from '#lib/db/index.ts';
import { findDataset } from '#lib/geodatasets/catalog.ts';
import { adminToken, call, uniqueName } from '../helpers.ts';

// The attack: a stored time value the ingest's regex backtracked on quadratically. One feature whose
// start-time property held a date, 200,000 spaces and a letter kept the write's function busy for over a
// minute (answered 503 by its time limit on every driver). A time is read in linear time, and a text
// longer than 100 characters is no time (docs/geodatasets-write.md, "Props and derived columns"), on the
// write and on the per-feature read alike. The bounds below are generous: the point is "not quadratic".

const LONG = `2024-01-01${' '.repeat(200_000)}x`;
const PADDED = `  2024-05-01T00:00:00Z  `;
const point = (properties: Record<string, unknown>) => ({
  type: 'Feature',
  geometry: { type: 'Point', coordinates: [1, 1] },
  properties,
});

describe('a 200,000-character time value', () => {
  it('is written promptly as no time, beside a real one; the service keeps answering', async () => {
    const name = uniqueName('longtime');
    const started = Date.now();
    const r = await call('POST', `/api/geodatasets/recreate/${name}/s,e`, {
      token: adminToken(),
      body: {
        type: 'FeatureCollection',
        features: [
          point({ n: 1, s: LONG, e: LONG, other: LONG }),
          point({ n: 2, s: PADDED, e: PADDED, other: PADDED }),
        ],
      },
    });
    expect(r.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect((await call('GET', '/api/utils/healthcheck')).status).toBe(200);

    const ds = (await findDataset(getDb().sql, name))!;
    const rows = await getDb().sql.unsafe(
      `select properties->>'n' as n, start_time, end_time from ${ds.table} order by id`,
    );
    expect(
      rows.map((row) => [row.n, row.start_time?.toISOString() ?? null, row.end_time?.toISOString() ?? null]),
    ).toEqual([
      ['1', null, null],
      ['2', '2024-05-01T00:00:00.000Z', '2024-05-01T00:00:00.000Z'],
    ]);

    // The per-feature read of another property (not the dataset's time columns) reads the same way.
    const readStarted = Date.now();
    const read = await call(
      'GET',
      `/api/geodatasets/get/${name}?type=geojson&startProp=other&endProp=other&starttime=2024-01-01T00:00:00Z&endtime=2024-12-31T00:00:00Z`,
      { token: adminToken() },
    );
    expect(read.status).toBe(200);
    expect(Date.now() - readStarted).toBeLessThan(20_000);
    expect(read.body.features.map((f: any) => f.properties.n)).toEqual([2]);
  });
});
