import { afterAll, describe, expect, it } from 'vitest';
import { closeDb, createDb, getDb } from '#lib/db/index.ts';
import { migrate } from '#lib/db/migrate.ts';
import { isEmbedded } from '../helpers.ts';

afterAll(() => closeDb());

describe('Db', () => {
  it('has PostGIS and probes ST_AsMVT (absent on the embedded database only)', async () => {
    const caps = await getDb().capabilities();
    expect(caps.postgisVersion).toMatch(/^3\./);
    expect(caps.asMvt).toBe(!isEmbedded());
    expect(await getDb().capabilities()).toBe(caps);
  });

  it('binds values: text that looks like SQL stays a value', async () => {
    const evil = "'); drop table users; --";
    const [row] = await getDb().sql`select ${evil}::text as v`;
    expect(row.v).toBe(evil);
    const [{ n }] = await getDb().sql`select count(*)::int as n from users`;
    expect(n).toBeGreaterThanOrEqual(1);
  });

  it('inserts batches through json_to_recordset with geometry expressions', async () => {
    const db = getDb();
    await db.sql`create table if not exists db_test_rows (a int, label text, geom geometry)`;
    const rows = Array.from({ length: 500 }, (_, i) => ({
      a: i,
      label: `p'${i}"`,
      geom: { type: 'Point', coordinates: [i / 10, -i / 20] },
    }));
    const n = await db.insertRows(db.sql, 'db_test_rows', { a: 'int', label: 'text', geom: 'json' }, rows, {
      geom: 'ST_SetSRID(ST_GeomFromGeoJSON(geom::text), 4326)',
    });
    expect(n).toBe(500);
    const [r] = await db.sql`select label, ST_X(geom) as x, ST_Y(geom) as y from db_test_rows where a = 499`;
    expect(r).toEqual({ label: `p'499"`, x: 49.9, y: -24.95 });
    await expect(db.insertRows(db.sql, 'x; drop table users', { a: 'int' }, [{ a: 1 }])).rejects.toThrow(
      /identifier/,
    );
    await db.sql`drop table db_test_rows`;
  });

  it('rolls a transaction back as a whole', async () => {
    const db = getDb();
    await db.sql`create table if not exists db_test_tx (a int)`;
    await expect(
      db.transaction(async (tx) => {
        await tx`insert into db_test_tx values (1)`;
        await tx`select 1/0`;
      }),
    ).rejects.toThrow();
    expect((await db.sql`select * from db_test_tx`).length).toBe(0);
    await db.sql`drop table db_test_tx`;
  });

  it('keeps concurrent clients apart (parameters, transactions) on either database', async () => {
    const a = createDb({ max: 4 });
    const b = createDb({ max: 4 });
    try {
      await a.sql`create table if not exists db_test_conc (k int, v text)`;
      const reads = Array.from({ length: 200 }, (_, i) =>
        (i % 2 ? a : b).sql`select ${i}::int as i, ${`v${i}`}::text as v`.then((r) => [r[0].i, r[0].v]),
      );
      const writes = Array.from({ length: 20 }, (_, k) =>
        (k % 2 ? a : b)
          .transaction(async (tx) => {
            for (let j = 0; j < 5; j++) await tx`insert into db_test_conc values (${k}, ${`t${k}-${j}`})`;
            if (k % 5 === 0) throw new Error('rollback');
            return (await tx`select count(*)::int as n from db_test_conc where k = ${k}`)[0].n;
          })
          .catch(() => -1),
      );
      const got = await Promise.all(reads);
      expect(got).toEqual(Array.from({ length: 200 }, (_, i) => [i, `v${i}`]));
      const counts = await Promise.all(writes);
      expect(counts).toEqual(Array.from({ length: 20 }, (_, k) => (k % 5 === 0 ? -1 : 5)));
      const [{ n }] = await a.sql`select count(*)::int as n from db_test_conc`;
      expect(n).toBe(16 * 5);
      await a.sql`drop table db_test_conc`;
    } finally {
      await Promise.all([a.end(), b.end()]);
    }
  });

  it('keeps concurrent clients apart when some of their queries fail', async () => {
    const a = createDb({ max: 4 });
    const b = createDb({ max: 4 });
    try {
      const outcomes = await Promise.all(
        Array.from({ length: 300 }, async (_, i) => {
          const db = i % 2 ? a : b;
          try {
            if (i % 7 === 0) await db.sql`select ${`x${i}`}::int`;
            else if (i % 11 === 0) {
              await db.transaction(async (tx) => {
                await tx`select ${i}::int`;
                await tx`select 1 / ${0}::int`;
              });
            } else return (await db.sql`select ${i}::int as i`)[0]?.i;
            return 'no error';
          } catch {
            return 'error';
          }
        }),
      );
      expect(outcomes).toEqual(
        Array.from({ length: 300 }, (_, i) => (i % 7 === 0 || i % 11 === 0 ? 'error' : i)),
      );
    } finally {
      await Promise.all([a.end(), b.end()]);
    }
  });

  it('migrations are idempotent', async () => {
    expect(await migrate(getDb().sql)).toEqual([]);
  });

  // The Data API has no per-statement timeout setting (its own limit is 45 s per call, docs/deploying.md).
  it.skipIf(isEmbedded() || process.env.DB_DRIVER === 'data-api')(
    'cancels statements past the statement timeout (server; PGlite has none)',
    async () => {
      const db = createDb({ statementTimeoutMs: 200, max: 1 });
      try {
        await expect(db.sql`select pg_sleep(2)`).rejects.toMatchObject({ code: '57014' });
      } finally {
        await db.end();
      }
    },
  );
});
