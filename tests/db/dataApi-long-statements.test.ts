import { ExecuteStatementCommand } from '@aws-sdk/client-rds-data';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDataApiDb, type DataApiClient } from '#lib/db/dataApi/index.ts';
import { createDb, type Db, probe } from '#lib/db/index.ts';
import { findDataset, type Geodataset } from '#lib/geodatasets/catalog.ts';
import { recomputeMissingStats } from '#lib/geodatasets/manage.ts';
import { recreateGeodataset } from '#lib/geodatasets/write/write.ts';
import { type StandIn, startDataApiStandIn } from '../../local/dataApi/standIn.ts';
import { isEmbedded, uniqueName } from '../helpers.ts';

/**
 * The Data API's 45 s wait for a statement and its auto-pause resume (docs/connections.md, "Long job
 * statements on the Data API" and "An auto-paused Aurora is waited for"), against a stand-in whose wait
 * is shortened to `WAIT_MS`: past it a statement is cancelled (`StatementTimeoutException`) unless the call asked
 * `continueAfterTimeout`; the hourly stats job, whose one statement over a whole layer passed the wait,
 * now reads the layer in bounded id ranges. The waits on the server only: the embedded database runs one
 * statement at a time for every test file, so a wait of a second measures the others' load there.
 */

const WAIT_MS = 1500;
let standIn: StandIn;
let api: Db & { api: DataApiClient };
let pg: Db;
const table = uniqueName('data_api_wait');
const target = (endpoint: string) => ({
  resourceArn: 'arn:aws:rds:us-east-1:000000000000:cluster:test',
  secretArn: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:test',
  database: 'postgres',
  endpoint,
});
const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));
const rowsOf = async (v: string) =>
  Number((await pg.sql.unsafe(`select count(*) as n from ${table} where v = $1`, [v]))[0].n);

beforeAll(async () => {
  const url = process.env.DATABASE_URL!;
  standIn = await startDataApiStandIn({ databaseUrl: url, statementWaitMs: WAIT_MS });
  api = createDataApiDb(target(standIn.endpoint), probe);
  pg = createDb({ url, max: 2 });
  await pg.sql.unsafe(`create table ${table} (v text not null)`);
});

afterAll(async () => {
  await pg?.sql.unsafe(`drop table if exists ${table}`);
  await Promise.all([api?.end(), pg?.end()]);
  await standIn?.stop();
});

describe.skipIf(isEmbedded())('Data API: the 45 s wait', () => {
  it('a statement past the wait is cancelled and answered StatementTimeoutException (57014)', async () => {
    const started = Date.now();
    const v = uniqueName('cancelled');
    await expect(
      api.sql.unsafe(`insert into ${table} select $1 from pg_sleep(${(2 * WAIT_MS) / 1000})`, [v]),
    ).rejects.toMatchObject({ kind: 'StatementTimeoutException', code: '57014' });
    expect(Date.now() - started).toBeLessThan(2 * WAIT_MS);
    await sleep(2 * WAIT_MS);
    expect(await rowsOf(v)).toBe(0);
  });

  it('with continueAfterTimeout the call still fails after the wait, and the statement completes', async () => {
    const v = uniqueName('continued');
    const send = api.api.client.send(
      new ExecuteStatementCommand({
        ...target(standIn.endpoint),
        sql: `insert into ${table} select :v from pg_sleep(${(2 * WAIT_MS) / 1000})`,
        parameters: [{ name: 'v', value: { stringValue: v } }],
        continueAfterTimeout: true,
      }),
    );
    await expect(send).rejects.toMatchObject({ name: 'StatementTimeoutException' });
    expect(await rowsOf(v)).toBe(0);
    await sleep(2 * WAIT_MS);
    expect(await rowsOf(v)).toBe(1);
  });

  it('the hourly stats job computes a layer whose single stats statement passes the wait', async () => {
    const name = uniqueName('long_stats');
    const n = 200_000;
    const first = { a: 1, b: 1, c: 'x1', nested: { d: 2 } };
    await recreateGeodataset(
      pg,
      {
        type: 'FeatureCollection',
        features: [{ type: 'Feature', geometry: { type: 'Point', coordinates: [0, 0] }, properties: first }],
      },
      { name },
    );
    const ds = (await findDataset(pg.sql, name)) as Geodataset;
    await pg.sql.unsafe(`
      insert into ${ds.table} (geom, properties)
      select ST_SetSRID(ST_MakePoint((g % 360) - 180, (g % 170) - 85), 4326),
             jsonb_build_object('a', g, 'b', g % 7, 'c', 'x' || g, 'nested', jsonb_build_object('d', 2 * g))
      from generate_series(2, ${n}) g`);
    await pg.sql`update geodatasets set field_stats = null where id = ${ds.id}`;
    // Statements of 5,000 ids: each well inside the wait; the whole layer in one took several waits.
    const { recomputed, failed } = await recomputeMissingStats(api, 5_000);
    expect(failed).not.toContain(name);
    expect(recomputed).toContain(name);
    const [row] = await pg.sql`select field_stats from geodatasets where id = ${ds.id}`;
    // Expected values from the generated series, not from the code under test.
    expect(row.field_stats.a).toMatchObject({ min: 1, max: n, count: n, sum: (n * (n + 1)) / 2 });
    expect(row.field_stats['nested.d']).toMatchObject({ min: 2, max: 2 * n, count: n, sum: n * (n + 1) });
    expect(row.field_stats.b).toMatchObject({ min: 0, max: 6, count: n });
    expect(row.field_stats.c).toBeUndefined();
  }, 180_000);
});

describe('Data API: an auto-paused Aurora resuming', () => {
  it('a call made while Aurora resumes (12 s, longer than the 10 s the driver used to wait) succeeds', async () => {
    standIn.resumeFor(12_000);
    const started = Date.now();
    const [row] = await api.sql`select 1 as one`;
    expect(row.one).toBe(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(11_000);
    expect(standIn.stats.resuming).toBeGreaterThan(3);
  }, 60_000);

  it('a resume longer than the call may wait is a refused connection (57P03), answered 503', async () => {
    const { withResumeWait } = await import('#lib/db/resumeWait.ts');
    standIn.resumeFor(5_000);
    await expect(withResumeWait(2_000, () => api.sql`select 1`.then((r) => r))).rejects.toMatchObject({
      kind: 'DatabaseResumingException',
      code: '57P03',
    });
    await sleep(5_000);
  }, 30_000);
});
