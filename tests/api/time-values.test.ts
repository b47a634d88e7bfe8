import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '#lib/db/index.ts';
import { recreateGeodataset } from '#lib/geodatasets/write/write.ts';
import { call, uniqueName } from '../helpers.ts';

/**
 * Time values a client sends, and time values in the data (docs/geodatasets-read.md, "Time"): RFC 3339
 * honoured (a leap second is the next minute's first second) or refused with a 400 naming the field; one
 * unreadable time in the data is that feature's missing time, never a 400 for the whole dataset.
 */

const db = getDb();
const name = uniqueName('times');
const t0 = [
  '2020-01-01T00:00:00Z', // 1: readable
  '2024-02-30T00:00:00Z', // 2: a rolled-over date (matches the ISO pattern; the cast raised)
  '0000-01-01T00:00:00Z', // 3: year 0000 (the cast raised)
  1e20, // 4: epoch milliseconds past every calendar (the cast raised)
  '2021-06-01', // 5: a date
  'garbage', // 6: no time
  1577836800000, // 7: 2020-01-01 in epoch milliseconds
  '2023-02-29', // 8: not a leap year
  '2024-02-29T12:00:00+05:00', // 9: a leap day
  -1e15, // 10: epoch milliseconds before 4713 BC (the cast raised)
];
const t1 = [
  '2020-01-01',
  'not a date',
  '2020-13-45',
  '2021-06-01',
  '',
  '2020-02-30',
  '2020-12-31',
  'x',
  '2024',
];
const features = t0.map((t, i) => ({
  type: 'Feature',
  geometry: { type: 'Point', coordinates: [i, i] },
  properties: { idx: i + 1, t0: t, t1: t1[i] },
}));

beforeAll(async () => {
  await recreateGeodataset(db, { type: 'FeatureCollection', features }, { name });
});

afterAll(async () => {
  const [row] = await db.sql`select table_name from geodatasets where name = ${name}`;
  if (row) {
    await db.sql.unsafe(`drop table if exists ${row.table_name as string}`);
    await db.sql`delete from geodatasets where name = ${name}`;
  }
});

const get = (params: Record<string, string>) =>
  call('GET', `/api/geodatasets/get?${new URLSearchParams({ layer: name, type: 'geojson', ...params })}`);
const idx = (body: any): number[] =>
  body.features.map((f: any) => f.properties.idx).sort((a: number, b: number) => a - b);

async function ids(params: Record<string, string>): Promise<number[]> {
  const res = await get(params);
  expect(res.status, res.text).toBe(200);
  return idx(res.body);
}

describe('unreadable times in the data are missing times, not a 400', () => {
  it('starttime/endtime on a time property', async () => {
    const window = { startProp: 't0', endProp: 't0' };
    expect(
      await ids({ ...window, starttime: '2019-01-01T00:00:00Z', endtime: '2022-01-01T00:00:00Z' }),
    ).toEqual([1, 5, 7]);
    expect(await ids({ ...window, starttime: '2024-01-01T00:00:00Z' })).toEqual([9]);
    expect(await ids({ ...window, endtime: '2020-01-01T00:00:00Z' })).toEqual([1, 7]);
  });

  it('a CQL2 temporal filter on that property', async () => {
    expect(await ids({ filter: "T_AFTER(t0, TIMESTAMP('2019-01-01T00:00:00Z'))" })).toEqual([1, 5, 7, 9]);
    expect(await ids({ filter: "t0 < DATE('2020-06-01')" })).toEqual([1, 7]);
  });

  it('a custom format: a text it does not fit has no time', async () => {
    const window = { startProp: 't1', endProp: 't1', format: 'YYYY-MM-DD' };
    expect(await ids({ ...window, starttime: '2020-01-01', endtime: '2021-12-31' })).toEqual(
      expect.arrayContaining([1, 4, 7]),
    );
  });
});

describe('time values a client sends', () => {
  it('honours a leap second as the next minute first second (starttime, CQL2)', async () => {
    const window = { startProp: 't0', endProp: 't0' };
    expect(
      await ids({ ...window, starttime: '2019-12-31T23:59:60Z', endtime: '2020-01-01T00:00:00Z' }),
    ).toEqual([1, 7]);
    expect(await ids({ filter: "T_EQUALS(t0, TIMESTAMP('2019-12-31T23:59:60Z'))" })).toEqual([1, 7]);
  });

  it.each([
    [{ starttime: '2020-01-01T00:00:61Z' }, 'starttime'],
    [{ endtime: '2020-02-30' }, 'endtime'],
    [{ starttime: '0000-06-01T00:00:00Z' }, 'starttime'],
    [{ endtime: '9999-12-31T23:00:00-05:00' }, 'endtime'],
    [{ filter: "T_AFTER(t0, TIMESTAMP('2020-01-01T00:00:00+24:00'))" }, 'filter'],
    [{ filter: "T_AFTER(t0, DATE('2020-02-30'))" }, 'filter'],
    [{ filter: "T_AFTER(t0, TIMESTAMP('0000-01-01T00:00:00Z'))" }, 'filter'],
  ])('refuses %j with a 400 naming %s', async (params, field) => {
    const res = await get({ startProp: 't0', endProp: 't0', ...params });
    expect(res.status, res.text).toBe(400);
    expect(res.body.status).toBe('failure');
    expect(res.body.message).toContain(field);
  });
});
