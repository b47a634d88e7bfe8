import { afterAll, describe, expect, it } from 'vitest';
import { closeDb, getDb } from '#lib/db/index.ts';
import { ISO_TIMESTAMP_SQL, parseIsoInstant, parseIsoTimestamp } from '#lib/iso8601.ts';

/** Texts around the edges of the stored-value profile: [text, instant or undefined]. */
const STORED: [string, string | undefined][] = [
  ['2024-01-02T03:04:05Z', '2024-01-02T03:04:05.000Z'],
  ['2024-01-02T03:04:05z', '2024-01-02T03:04:05.000Z'],
  ['2024-01-02T03:04:05.123456+02:00', '2024-01-02T01:04:05.123Z'],
  ['2024-01-02T03:04:05.9999-01', '2024-01-02T04:04:05.999Z'],
  ['2024-01-02T03:04:05-0130', '2024-01-02T04:34:05.000Z'],
  ['2024-01-02 03:04', '2024-01-02T03:04:00.000Z'],
  ['  2024-01-02T03:04 Z ', '2024-01-02T03:04:00.000Z'],
  ['2024-01-02', '2024-01-02T00:00:00.000Z'],
  ['2024-01-02Z', '2024-01-02T00:00:00.000Z'],
  ['2024-01-02+05', '2024-01-01T19:00:00.000Z'],
  ['0050-06-01T00:00:00Z', '0050-06-01T00:00:00.000Z'],
  ['2024-02-29T23:59:59Z', '2024-02-29T23:59:59.000Z'],
  ['2024-02-30', undefined],
  ['2023-02-29T00:00:00Z', undefined],
  ['2024-13-01', undefined],
  ['2024-01-01T24:00:00Z', undefined],
  ['2024-01-01T12:60:00Z', undefined],
  ['2024-01-01T12:00:60Z', undefined],
  ['2024-01-01T12:00:00+25:00', undefined],
  ['2024-01-01T12:00:00+02:60', undefined],
  ['2024-01-01t12:00:00Z', undefined],
  ['20240102T030405Z', undefined],
  ['2024-01', undefined],
  ['2024', undefined],
  ['1704164645000', undefined],
  ['01/02/2024', undefined],
  ['yesterday', undefined],
];

describe('the stored-value profile of lib/iso8601.ts', () => {
  it.each(STORED)('parseIsoTimestamp(%j) = %j', (text, want) => {
    expect(parseIsoTimestamp(text)).toBe(want);
  });

  it('gives the instant the request profile gives where both accept a text', () => {
    const both = STORED.filter(([text, want]) => want && parseIsoInstant(text));
    expect(both.length).toBeGreaterThan(8);
    for (const [text, want] of both) expect(parseIsoInstant(text)).toBe(want);
  });
});

describe('ISO_TIMESTAMP_SQL in the database', () => {
  const db = getDb();
  afterAll(() => closeDb());

  it('matches what parseIsoTimestamp accepts (besides rolled-over dates), and the cast gives the same instant', async () => {
    const texts = STORED.map(([t]) => t);
    const rows = await db.sql`
      select t, t ~ ${ISO_TIMESTAMP_SQL.withOffset} as off, t ~ ${ISO_TIMESTAMP_SQL.withoutOffset} as plain
      from unnest(${texts}::text[]) t`;
    for (const [text, want] of STORED) {
      const row = rows.find((r) => r.t === text)!;
      const rolledOver = ['2024-02-30', '2023-02-29T00:00:00Z'].includes(text);
      expect({ text, matched: row.off || row.plain }).toEqual({
        text,
        matched: want !== undefined || rolledOver,
      });
      if (!want) continue;
      const [cast] = row.off
        ? await db.sql`select extract(epoch from ${text}::text::timestamptz)::float8 * 1000 as ms`
        : await db.sql`select extract(epoch from ${text}::text::timestamp at time zone 'UTC')::float8 * 1000 as ms`;
      // The database keeps microseconds where the JS profile keeps milliseconds.
      const ms = Math.floor(Number(cast.ms));
      expect({ text, v: new Date(ms).toISOString() }).toEqual({ text, v: want });
    }
  });
});
