import type { APIGatewayProxyEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDataApiDb } from '#lib/db/dataApi/index.ts';
import { closeDb, createDb, type Db, probe, type Queryable } from '#lib/db/index.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { type Fault, type StandIn, startDataApiStandIn } from '../../local/dataApi/standIn.ts';
import { freePort } from '../../local/embedded/start.ts';
import { isEmbedded, uniqueName } from '../helpers.ts';

/**
 * Statements run once through the Data API driver (docs/connections.md): against the local stand-in
 * made to lose the answer of a call after running it. A statement in a transaction and a commit run
 * exactly once and the caller gets an error; a read outside a transaction is sent again and succeeds.
 * Each statement under test steps a sequence, which no rollback undoes: the sequence counts its runs.
 */

let standIn: StandIn;
let api: Db;
let pg: Db;
const table = uniqueName('data_api_once');
const runs = `${table}_runs`;
const target = (endpoint: string) => ({
  resourceArn: 'arn:aws:rds:us-east-1:000000000000:cluster:test',
  secretArn: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:test',
  database: 'postgres',
  endpoint,
});

beforeAll(async () => {
  const url = process.env.DATABASE_URL!;
  standIn = await startDataApiStandIn({ databaseUrl: url });
  api = createDataApiDb(target(standIn.endpoint), probe);
  pg = createDb({ url, max: 1 });
  await pg.sql.unsafe(`create sequence ${runs}`);
  await pg.sql.unsafe(`create table ${table} (v text not null, run bigint not null)`);
});

afterAll(async () => {
  await pg.sql.unsafe(`drop table if exists ${table}`);
  await pg.sql.unsafe(`drop sequence if exists ${runs}`);
  await Promise.all([api.end(), pg.end()]);
  await standIn.stop();
});

/** How many times a statement that steps the sequence has run. */
const runCount = async () => {
  const [r] = await pg.sql.unsafe(`select case when is_called then last_value else 0 end as n from ${runs}`);
  return Number(r.n);
};
const rowsOf = async (v: string) =>
  (await pg.sql.unsafe(`select run from ${table} where v = $1`, [v])).length;
const insert = (sql: Queryable, v: string) =>
  sql.unsafe(`insert into ${table} select $1, nextval('${runs}')`, [v]);
const calls = (op: string) => standIn.stats[`/${op}`] ?? 0;
const lostAnswers: Fault['answer'][] = ['reset', 502, 500];

describe('Data API driver: statements run once', () => {
  it.each(lostAnswers)(
    'a statement in a transaction whose answer is lost (%s) runs once; the caller gets an error',
    async (answer) => {
      const v = uniqueName('tx');
      const before = await runCount();
      const sent = calls('Execute');
      standIn.failNext({ operation: 'Execute', sql: new RegExp(`insert into ${table}`), answer });
      await expect(api.transaction((tx) => insert(tx, v))).rejects.toThrow();
      expect(await runCount()).toBe(before + 1);
      expect(calls('Execute') - sent).toBe(1);
      // The transaction was rolled back: the row that ran once is not there.
      expect(await rowsOf(v)).toBe(0);
    },
  );

  it.each(lostAnswers)(
    'a commit whose answer is lost (%s) runs once: the row is there once, the caller gets an error',
    async (answer) => {
      const v = uniqueName('commit');
      const before = await runCount();
      const commits = calls('CommitTransaction');
      standIn.failNext({ operation: 'CommitTransaction', answer });
      await expect(api.transaction((tx) => insert(tx, v))).rejects.toThrow();
      expect(calls('CommitTransaction') - commits).toBe(1);
      expect(await runCount()).toBe(before + 1);
      expect(await rowsOf(v)).toBe(1);
    },
  );

  it('a write outside a transaction whose answer is lost runs once; the caller gets an error', async () => {
    const v = uniqueName('write');
    const before = await runCount();
    standIn.failNext({ operation: 'Execute', sql: new RegExp(`insert into ${table}`), answer: 503 });
    await expect(insert(api.sql, v)).rejects.toThrow();
    expect(await runCount()).toBe(before + 1);
    expect(await rowsOf(v)).toBe(1);
  });

  it.each(lostAnswers)(
    'a read outside a transaction whose answer is lost (%s) is sent again and succeeds',
    async (answer) => {
      const v = uniqueName('read');
      await insert(pg.sql, v);
      const sent = calls('Execute');
      standIn.failNext({
        operation: 'Execute',
        sql: new RegExp(`select count\\(\\*\\)::int as n from ${table}`),
        answer,
      });
      const [r] = await api.sql.unsafe(`select count(*)::int as n from ${table} where v = $1`, [v]);
      expect(r.n).toBe(1);
      expect(calls('Execute') - sent).toBe(2);
    },
  );

  // The first transaction stays open until the stand-in's 3-minute timeout; on the embedded database it
  // holds the one session, and the second would wait for it (Aurora runs them side by side).
  it.skipIf(isEmbedded())(
    'a BeginTransaction whose answer is lost is sent again; the transaction then commits once',
    async () => {
      const v = uniqueName('begin');
      const before = await runCount();
      const begins = calls('BeginTransaction');
      standIn.failNext({ operation: 'BeginTransaction', answer: 'reset' });
      await api.transaction((tx) => insert(tx, v));
      expect(calls('BeginTransaction') - begins).toBe(2);
      expect(await runCount()).toBe(before + 1);
      expect(await rowsOf(v)).toBe(1);
    },
  );

  it('throttled calls are sent again, in a transaction and on commit too, and run once', async () => {
    const v = uniqueName('throttled');
    const before = await runCount();
    const commits = calls('CommitTransaction');
    standIn.failNext({
      operation: 'Execute',
      sql: new RegExp(`insert into ${table}`),
      when: 'before',
      answer: 'throttle',
    });
    standIn.failNext({ operation: 'CommitTransaction', when: 'before', answer: 'throttle' });
    await api.transaction((tx) => insert(tx, v));
    expect(calls('CommitTransaction') - commits).toBe(2);
    expect(await runCount()).toBe(before + 1);
    expect(await rowsOf(v)).toBe(1);
  });
});

/** An endpoint run as a Lambda in this process, with the Data API driver on the stand-in. */
const invoke = async (handler: unknown, httpMethod: string) => {
  const event = {
    httpMethod,
    path: '/test',
    pathParameters: null,
    queryStringParameters: null,
    headers: {},
    body: null,
    isBase64Encoded: false,
    requestContext: { requestId: 'test' },
  } as unknown as APIGatewayProxyEvent;
  return (handler as (e: unknown, c: unknown) => Promise<{ statusCode: number; body: string }>)(event, {
    awsRequestId: 't',
  });
};

describe('Data API driver: a request is run again only when none of its statements was sent', () => {
  const saved = { ...process.env };
  const useStandIn = async (endpointUrl: string) => {
    await closeDb();
    Object.assign(process.env, {
      DB_DRIVER: 'data-api',
      DATA_API_ENDPOINT: endpointUrl,
      DB_CLUSTER_ARN: target(endpointUrl).resourceArn,
      DB_SECRET_ARN: target(endpointUrl).secretArn,
    });
  };
  afterAll(async () => {
    await closeDb();
    for (const k of ['DB_DRIVER', 'DATA_API_ENDPOINT', 'DB_CLUSTER_ARN', 'DB_SECRET_ARN']) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  });

  it('a handler whose write lost its answer is not run again: 503, the write ran once', async () => {
    await useStandIn(standIn.endpoint);
    const v = uniqueName('handler');
    let handlerRuns = 0;
    const handler = endpoint({ auth: 'public' }, async ({ db }) => {
      handlerRuns++;
      await insert(db.sql, v);
      return { ok: true };
    });
    const before = await runCount();
    standIn.failNext({ operation: 'Execute', sql: new RegExp(`insert into ${table}`), answer: 'reset' });
    const res = await invoke(handler, 'POST');
    expect(res.statusCode, res.body).toBe(503);
    expect(handlerRuns).toBe(1);
    expect(await runCount()).toBe(before + 1);
    expect(await rowsOf(v)).toBe(1);
  });

  it('a handler whose first call was refused before sending is run again and succeeds', async () => {
    await useStandIn(standIn.endpoint);
    const v = uniqueName('refused');
    let handlerRuns = 0;
    const handler = endpoint({ auth: 'public' }, async ({ db }) => {
      if (++handlerRuns === 1) {
        // Nothing listens there: the connection is refused before anything is sent.
        const dead = createDataApiDb(target(`http://127.0.0.1:${await freePort()}`), probe);
        try {
          await dead.sql`select 1`;
        } finally {
          await dead.end();
        }
      }
      await insert(db.sql, v);
      return { ok: true };
    });
    const res = await invoke(handler, 'POST');
    expect(res.statusCode, res.body).toBe(200);
    expect(handlerRuns).toBe(2);
    expect(await rowsOf(v)).toBe(1);
  });

  it('nothing listening: 503 naming the cause, not a 500', async () => {
    await useStandIn(`http://127.0.0.1:${await freePort()}`);
    const handler = endpoint({ auth: 'public' }, async ({ db }) => db.sql`select 1`);
    const res = await invoke(handler, 'GET');
    expect(res.statusCode).toBe(503);
    expect(JSON.parse(res.body).message).toMatch(/could not be reached/);
  });
});
