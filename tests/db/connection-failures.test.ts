import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { closeDb, createDb, parseDatabaseUrl } from '#lib/db/index.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { handler } from '../../functions/configure/missions.ts';
import { freePort } from '../../local/embedded/start.ts';
import { isEmbedded, uniqueName } from '../helpers.ts';

// A refused or broken connection is retried once, then answered 503 with Retry-After (never 500, never a
// hang): against real refusals, not mocks. Each case points the process-wide pool at another URL.

const testUrl = process.env.DATABASE_URL!;
const event = {
  httpMethod: 'GET',
  path: '/api/configure/missions',
  pathParameters: null,
  queryStringParameters: null,
  headers: {},
  body: null,
  isBase64Encoded: false,
  requestContext: { requestId: 'test' },
};
type Result = { statusCode: number; headers?: Record<string, string>; body: string };
const invoke = async (url: string): Promise<Result> => {
  await closeDb();
  process.env.DATABASE_URL = url;
  return (handler as unknown as (e: unknown, c: unknown) => Promise<Result>)(event, { awsRequestId: 't' });
};

afterEach(async () => {
  await closeDb();
  process.env.DATABASE_URL = testUrl;
});
afterAll(() => closeDb());

function withPort(url: string, port: number): string {
  const u = new URL(url);
  u.port = String(port);
  return u.toString();
}

/** A TCP front to the test database that runs `first` on its first `n` clients and forwards the rest. */
async function flakyProxy(
  n: number,
  first: (s: Socket) => void,
): Promise<{ server: Server; url: string; seen: () => number }> {
  const target = new URL(parseDatabaseUrl(testUrl).url);
  let seen = 0;
  const server = createServer((client) => {
    seen++;
    if (seen <= n) return first(client);
    const up = connect(Number(target.port || 5432), target.hostname);
    client.pipe(up).pipe(client);
    up.on('error', () => client.destroy());
    client.on('error', () => up.destroy());
  });
  const port = await freePort();
  await new Promise<void>((ok) => server.listen(port, '127.0.0.1', ok));
  return { server, url: withPort(testUrl, port), seen: () => seen };
}

// The RDS Data API driver holds no client connections (docs/connections.md): these cases are postgres.js's.
describe.skipIf(process.env.DB_DRIVER === 'data-api')('connection failures', () => {
  it('nothing listening (ECONNREFUSED): 503 with Retry-After and a clear message, after one retry', async () => {
    const url = withPort(testUrl, await freePort());
    const t0 = Date.now();
    const res = await invoke(url);
    expect(res.statusCode).toBe(503);
    expect(res.headers?.['Retry-After']).toBe('2');
    expect(JSON.parse(res.body)).toEqual({
      status: 'failure',
      message: expect.stringMatching(/temporarily unavailable: the database could not be reached/),
    });
    expect(Date.now() - t0).toBeLessThan(15_000);
  });

  it('a connection dropped before the server answered is retried once and the request succeeds', async () => {
    const proxy = await flakyProxy(1, (s) => s.destroy());
    try {
      const res = await invoke(proxy.url);
      expect(res.statusCode, res.body).toBe(200);
      expect(JSON.parse(res.body).status).toBe('success');
      expect(proxy.seen()).toBeGreaterThanOrEqual(2);
    } finally {
      await closeDb();
      proxy.server.close();
    }
  });

  it('a connect timeout is a 503, not a hang', async () => {
    // Accepts the TCP connection and never answers the startup message.
    const held: Socket[] = [];
    const proxy = await flakyProxy(100, (s) => held.push(s));
    process.env.DB_CONNECT_TIMEOUT_S = '1';
    try {
      const res = await invoke(proxy.url);
      expect(res.statusCode).toBe(503);
      expect(res.headers?.['Retry-After']).toBe('2');
    } finally {
      delete process.env.DB_CONNECT_TIMEOUT_S;
      for (const s of held) s.destroy();
      await closeDb();
      proxy.server.close();
    }
  });

  it.skipIf(isEmbedded())('too many clients (SQLSTATE 53300) is a 503 naming the cause', async () => {
    const admin = createDb({ url: testUrl, max: 1 });
    const role = uniqueName('limited');
    await admin.sql.unsafe(`create role ${role} login connection limit 0`);
    try {
      const u = new URL(testUrl);
      u.username = role;
      u.password = '';
      const res = await invoke(u.toString());
      expect(res.statusCode).toBe(503);
      expect(res.headers?.['Retry-After']).toBe('2');
      expect(JSON.parse(res.body).message).toMatch(/no free connection \(too many clients\)/);
    } finally {
      await closeDb();
      await admin.sql.unsafe(`drop role if exists ${role}`);
      await admin.end();
    }
  });
});

// postgres.js: which queries of a request were written to a connection (lib/db/statementLog.ts). PGlite's
// one backend is not terminated here: that would end the embedded database for every test file.
describe.skipIf(isEmbedded())('a request is run again only when none of its statements was sent', () => {
  const driver = process.env.DB_DRIVER;
  afterAll(() => {
    if (driver === undefined) delete process.env.DB_DRIVER;
    else process.env.DB_DRIVER = driver;
  });

  it('a handler whose connection is lost after a write is not run again, even a GET: 503, one row', async () => {
    process.env.DB_DRIVER = 'postgres';
    const admin = createDb({ url: testUrl, max: 1 });
    const table = uniqueName('once');
    await admin.sql.unsafe(`create table ${table} (v int)`);
    let runs = 0;
    const write = endpoint({ auth: 'public' }, async ({ db }) => {
      runs++;
      await db.sql.unsafe(`insert into ${table} values (1)`);
      // The server ends this connection under the handler (57P01), as a failover or RDS Proxy may.
      await db.sql`select pg_terminate_backend(pg_backend_pid())`;
      return { ok: true };
    });
    try {
      await closeDb();
      const res = await (write as unknown as (e: unknown, c: unknown) => Promise<Result>)(event, {
        awsRequestId: 't',
      });
      expect(res.statusCode, res.body).toBe(503);
      expect(runs).toBe(1);
      expect(await admin.sql.unsafe(`select * from ${table}`)).toHaveLength(1);
    } finally {
      await closeDb();
      await admin.sql.unsafe(`drop table if exists ${table}`);
      await admin.end();
    }
  });

  it('a query made but never sent (a fragment) does not count; a refused connection runs the handler again', async () => {
    process.env.DB_DRIVER = 'postgres';
    let runs = 0;
    const read = endpoint({ auth: 'public' }, async ({ db }) => {
      runs++;
      const fragment = db.sql`where true`;
      const [row] = await db.sql`select 1 as one ${fragment}`;
      return row;
    });
    const url = withPort(testUrl, await freePort());
    await closeDb();
    process.env.DATABASE_URL = url;
    const res = await (read as unknown as (e: unknown, c: unknown) => Promise<Result>)(event, {
      awsRequestId: 't',
    });
    expect(res.statusCode).toBe(503);
    expect(runs).toBe(2);
  });
});
