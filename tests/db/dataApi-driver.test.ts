import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDataApiDb } from '#lib/db/dataApi/index.ts';
import { createDb, type Db, probe } from '#lib/db/index.ts';
import { type StandIn, startDataApiStandIn } from '../../local/dataApi/standIn.ts';

/**
 * The Data API driver through the local stand-in (the real @aws-sdk/client-rds-data client over HTTP)
 * against the test database, compared with the postgres.js driver on the same queries.
 */

let standIn: StandIn;
let small: StandIn;
let api: Db & { api: { calls: number } };
let tiny: Db;
let pg: Db;
const target = (endpoint: string) => ({
  resourceArn: 'arn:aws:rds:us-east-1:000000000000:cluster:test',
  secretArn: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:test',
  database: 'postgres',
  endpoint,
});

beforeAll(async () => {
  const url = process.env.DATABASE_URL!;
  standIn = await startDataApiStandIn({ databaseUrl: url });
  // Limits scaled down so a few KB exercise the oversize path (1 MiB / 64 KB on AWS).
  small = await startDataApiStandIn({ databaseUrl: url, maxResponseBytes: 8000, maxRowBytes: 2000 });
  api = createDataApiDb(target(standIn.endpoint), probe);
  tiny = createDataApiDb({ ...target(small.endpoint), maxResponseBytes: 8000, maxRowBytes: 2000 }, probe);
  pg = createDb({ url, max: 2 });
  await pg.sql`create table if not exists data_api_t (id int primary key, v text)`;
  await pg.sql`delete from data_api_t`;
});

afterAll(async () => {
  await pg.sql`drop table if exists data_api_t`;
  await Promise.all([api.end(), tiny.end(), pg.end()]);
  await Promise.all([standIn.stop(), small.stop()]);
});

describe('Data API driver', () => {
  it('binds and returns the same values as postgres.js (text, numbers, booleans, null, arrays, jsonb, bytea, time)', async () => {
    const when = new Date('2024-03-04T05:06:07.891Z');
    const bytes = Buffer.from([0, 1, 2, 250, 255]);
    const query = (
      db: Db,
    ) => db.sql`select ${'it\'s "quoted" :p1 $1'}::text as t, ${42}::int as i, ${2 ** 40}::bigint as b,
      ${1.5}::float8 as f, ${true} as yes, ${null}::text as nothing, ${db.sql.json({ a: [1, { b: 'x' }], n: null })}::jsonb as j,
      ${bytes}::bytea as bin, ${when}::timestamptz as at, '2024-01-02'::date as d, ${['a', 'b"c', 'NULL', 'd\\e']}::text[] as texts,
      ${[1.5, 2]}::float8[] as nums, 1.10::numeric as dec, count(*) over () as n, ST_AsText(ST_MakePoint(1, 2)) as wkt`;
    const [a] = await query(api);
    const [b] = await query(pg);
    expect(a).toEqual(b);
    expect(a.j).toEqual({ a: [1, { b: 'x' }], n: null });
    expect(a.at).toEqual(when);
    expect(Buffer.isBuffer(a.bin) && a.bin.equals(bytes)).toBe(true);
    expect(a.b).toBe(2 ** 40);
    expect(a.texts).toEqual(['a', 'b"c', 'NULL', 'd\\e']);
  });

  it('inlines fragments and identifiers, renumbers unsafe $n, reports count and command', async () => {
    const frag = api.sql`x > ${1}`;
    const rows =
      await api.sql`select ${api.sql('x')} from (select generate_series(1, ${3}) as x) t where ${frag} and ${api.sql`x < ${3}`}`;
    expect(rows.map((r) => r.x)).toEqual([2]);
    expect(rows.count).toBe(1);
    const u = await api.sql.unsafe('select $1::int + $2::int as s', [2, 3]);
    expect(u[0].s).toBe(5);
    const ins = await api.sql`insert into data_api_t (id, v) values (1, 'a'), (2, 'b')`;
    expect(ins.count).toBe(2);
    expect(ins.command).toBe('INSERT');
    const n = await api.insertRows(api.sql, 'data_api_t', { id: 'int', v: 'text' }, [{ id: 3, v: "c'" }]);
    expect(n).toBe(1);
  });

  it('commits a transaction and rolls it back on error, with the transaction id on every statement', async () => {
    await api.transaction(async (tx) => {
      await tx`insert into data_api_t (id, v) values (10, 'in tx')`;
      const [r] = await tx`select v from data_api_t where id = 10`;
      expect(r.v).toBe('in tx');
    });
    expect((await pg.sql`select v from data_api_t where id = 10`)[0].v).toBe('in tx');
    await expect(
      api.transaction(async (tx) => {
        await tx`insert into data_api_t (id, v) values (11, 'lost')`;
        await tx`insert into data_api_t (id, v) values (10, 'duplicate')`;
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect(await pg.sql`select 1 from data_api_t where id = 11`).toHaveLength(0);
    await expect(
      api.sql.begin(async (tx) => {
        await tx`update data_api_t set v = 'changed' where id = 10`;
        throw new Error('the caller gives up');
      }),
    ).rejects.toThrow('the caller gives up');
    expect((await pg.sql`select v from data_api_t where id = 10`)[0].v).toBe('in tx');
  });

  it('maps database errors to SQLSTATE codes like postgres.js', async () => {
    await expect(api.sql`selec 1`).rejects.toMatchObject({ code: '42601' });
    await expect(api.sql`select 1/0`).rejects.toMatchObject({ code: '22012' });
    await expect(api.sql`select * from no_such_table`).rejects.toMatchObject({ code: '42P01' });
    await expect(api.sql`select ${'x'}::int`).rejects.toMatchObject({ code: '22P02' });
  });

  it('reads answers over the response and row limits through the oversize path', async () => {
    const before = small.stats.refusedForSize;
    const [big] =
      await tiny.sql`select repeat('é', 5000) || ${'!'} as t, ${tiny.sql.json({ a: 1 })}::jsonb as j`;
    expect(big.t).toBe(`${'é'.repeat(5000)}!`);
    expect(big.j).toEqual({ a: 1 });
    const many =
      await tiny.sql`select g as i, g::text || 'x' as s, now() as at from generate_series(1, 500) g order by g desc`;
    expect(many).toHaveLength(500);
    expect(many[0]).toMatchObject({ i: 500, s: '500x' });
    expect(many[0].at).toBeInstanceOf(Date);
    const inTx = await tiny.transaction(async (tx) => {
      const rows = await tx`select repeat('y', 10000) as t`;
      await tx`insert into data_api_t (id, v) values (20, ${rows[0].t as string})`;
      return rows[0].t as string;
    });
    expect(inTx).toHaveLength(10000);
    expect(small.stats.refusedForSize).toBeGreaterThan(before + 2);
    // A write whose answer is too large is never run twice: it fails.
    await expect(tiny.sql`update data_api_t set v = v where id = 20 returning v`).rejects.toThrow(
      /size limit/,
    );
  });

  it('reads a query in batches with cursor(n), as postgres.js does, whatever the row and response sizes', async () => {
    // Rows from 2 bytes to 9 KB (over the scaled-down 2,000-byte row limit), pages over the 8,000-byte
    // response limit: the chunked FETCH reads them all, in order, with their types.
    const query = (db: Db) =>
      db.sql`select g as id, repeat(${'é"x'}, case when g % 50 = 0 then 3000 else g % 7 end) as t,
        (g % 3 = 0) as b, timestamptz '2024-01-01' + g * interval '1 hour' as at
        from generate_series(1, ${400}::int) g order by g desc`;
    const expected = [...(await query(pg))];
    const read = async (db: Db, n: number) => {
      const batches: number[] = [];
      const rows: Record<string, unknown>[] = [];
      for await (const batch of query(db).cursor(n)) {
        batches.push(batch.length);
        rows.push(...batch);
      }
      return { batches, rows };
    };
    const before = small.stats.refusedForSize;
    const viaTiny = await read(tiny, 100);
    expect(viaTiny.rows).toEqual(expected);
    expect(viaTiny.batches.length).toBeGreaterThan(1);
    expect(viaTiny.batches).toEqual([100, 100, 100, 100]);
    expect(small.stats.refusedForSize).toBeGreaterThan(before);
    expect((await read(api, 150)).rows).toEqual(expected);
    expect((await read(pg, 150)).rows).toEqual(expected);

    // Leaving early ends its transaction; a cursor inside the caller's transaction uses that one.
    for await (const batch of query(tiny).cursor(10)) {
      expect(batch[0]).toEqual(expected[0]);
      break;
    }
    const inTx = await tiny.transaction(async (tx) => {
      let n = 0;
      for await (const batch of tx`select g from generate_series(1, ${25}::int) g`.cursor(10))
        n += batch.length;
      return n;
    });
    expect(inTx).toBe(25);
    await expect(
      (async () => {
        for await (const _ of tiny.sql`select 1 / (5 - g) as x from generate_series(1, 10) g`.cursor(2)) {
        }
      })(),
    ).rejects.toMatchObject({ code: '22012' });
    expect([...(await tiny.sql`select 1 as ok`)]).toEqual([{ ok: 1 }]);
  });
});
