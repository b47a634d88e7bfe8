import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from '#lib/db/index.ts';
import { type ConnectionPooler, startConnectionPooler } from '../../scripts/connectionPooler.ts';
import { isEmbedded, uniqueName } from '../helpers.ts';

// The local stand-in for RDS Proxy (docs/connections.md), against the real PostgreSQL server: clients with
// named prepared statements move between fewer server connections, and nothing leaks from one client's
// transaction or error into another's.

const upstreamUrl = () => parseDatabaseUrl(process.env.DATABASE_URL!).url;
const table = uniqueName('pooler_t');
let pooler: ConnectionPooler;
const clients: postgres.Sql[] = [];
const client = (options: postgres.Options<Record<string, never>> = {}) => {
  const sql = postgres(pooler.url, { max: 1, onnotice: () => {}, ...options });
  clients.push(sql);
  return sql;
};

describe.skipIf(isEmbedded() || process.env.DB_DRIVER === 'data-api')(
  'the connection pooler (in front of a PostgreSQL server only: not used on the embedded database or the Data API)',
  () => {
    beforeAll(async () => {
      pooler = await startConnectionPooler({ upstreamUrl: upstreamUrl(), max: 2, waitMs: 1500 });
      const admin = postgres(upstreamUrl(), { max: 1, onnotice: () => {} });
      await admin.unsafe(`create table ${table} (id int primary key, v text)`);
      await admin.end();
    });
    afterAll(async () => {
      await Promise.all(clients.map((c) => c.end({ timeout: 1 })));
      await pooler?.stop();
      const admin = postgres(upstreamUrl(), { max: 1, onnotice: () => {} });
      await admin.unsafe(`drop table if exists ${table}`);
      await admin.end();
    });

    it('serves 12 clients with prepared statements over at most 2 server connections', async () => {
      const many = Array.from({ length: 12 }, () => client());
      for (let round = 0; round < 5; round++) {
        const got = await Promise.all(
          many.map((sql, i) => sql`select ${i}::int + ${round}::int as n, pg_backend_pid() as pid`),
        );
        for (const [i, [r]] of got.entries()) expect(r.n).toBe(i + round);
      }
      // The same statement from one client ran on both server sessions (the pooler prepared it where needed).
      const pids = new Set<number>();
      await many[0]`select pg_backend_pid() as pid, ${-1}::int as k`;
      for (let k = 0; k < 20; k++) {
        // Inside a transaction: an unprepared statement would abort it, and postgres.js could not retry.
        const [a] = await Promise.all([
          many[0].begin((tx) => tx`select pg_backend_pid() as pid, ${k}::int as k`),
          many[1]`select pg_sleep(0.01), pg_backend_pid() as pid`,
        ]);
        expect(a[0].k).toBe(k);
        pids.add(a[0].pid);
      }
      expect(pids.size).toBe(2);
      const s = pooler.stats();
      expect(s.peakServerConnections).toBeLessThanOrEqual(2);
      expect(s.peakClients).toBeGreaterThanOrEqual(12);
    });

    it('keeps a transaction on one server connection and its writes from others until commit', async () => {
      const [a, b] = [client(), client()];
      await a.begin(async (tx) => {
        await tx`insert into ${tx(table)} values (1, 'a')`;
        const [seen] = await b`select count(*)::int as n from ${b(table)} where id = 1`;
        expect(seen.n).toBe(0);
        const [own] = await tx`select count(*)::int as n from ${tx(table)} where id = 1`;
        expect(own.n).toBe(1);
      });
      const [after] = await b`select v from ${b(table)} where id = 1`;
      expect(after.v).toBe('a');
    });

    it('passes errors through and stays usable after them (in and out of transactions)', async () => {
      const a = client();
      await expect(a`insert into ${a(table)} values (1, 'dup')`).rejects.toMatchObject({ code: '23505' });
      await expect(a.unsafe('selec 1')).rejects.toMatchObject({ code: '42601' });
      await expect(
        a.begin(async (tx) => {
          await tx`insert into ${tx(table)} values (2, 'x')`;
          await tx`insert into ${tx(table)} values (2, 'y')`;
        }),
      ).rejects.toMatchObject({ code: '23505' });
      for (let k = 0; k < 6; k++) {
        const [r] = await a`select count(*)::int as n from ${a(table)} where id = ${2}`;
        expect(r.n).toBe(0);
      }
    });

    it('streams a cursor across round trips on one server connection', async () => {
      const a = client();
      const b = client();
      let rows = 0;
      for await (const batch of a`select g from generate_series(1, 5000) g`.cursor(1000)) {
        rows += batch.length;
        const [r] = await b`select ${rows}::int as n`;
        expect(r.n).toBe(rows);
      }
      expect(rows).toBe(5000);
    });

    it('refuses with 53300 when no server connection frees up in time, then recovers', async () => {
      const [a, b, c] = [client(), client(), client({ fetch_types: false })];
      const hold = Promise.all([a`select pg_sleep(3)`, b`select pg_sleep(3)`]);
      await new Promise((r) => setTimeout(r, 300));
      await expect(c`select 1`).rejects.toMatchObject({ code: '53300' });
      await hold;
      const [r] = await client()`select 1 as one`;
      expect(r.one).toBe(1);
    });

    it('does not hand on a transaction left open by a client that vanished', async () => {
      const a = client();
      const reserved = await a.reserve();
      await reserved`begin`;
      await reserved`insert into ${reserved(table)} values (3, 'open')`;
      await a.end({ timeout: 0 });
      await new Promise((r) => setTimeout(r, 200));
      const b = client();
      for (let k = 0; k < 4; k++) {
        const [r] =
          await b`select count(*)::int as n, current_setting('transaction_isolation') as iso, txid_current_if_assigned() is null as fresh from ${b(table)} where id = 3`;
        expect(r.n).toBe(0);
        expect(r.fresh).toBe(true);
      }
    });
  },
);
