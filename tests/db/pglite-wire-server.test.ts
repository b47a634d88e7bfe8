import { connect, type Socket } from 'node:net';
import { PGlite } from '@electric-sql/pglite';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '#lib/db/embedded.ts';
import { createDb } from '#lib/db/index.ts';
import { PGliteWireServer } from '#lib/db/pgliteServer.ts';
import { isEmbedded } from '../helpers.ts';

/**
 * The embedded database's wire server: one PGlite session shared by every client (docs/connections.md).
 * Each test starts its own PGlite, whatever the run's database, so the file runs once: in the embedded run.
 */

function startupMessage(): Buffer {
  const params = Buffer.from('user\0postgres\0database\0postgres\0\0');
  const head = Buffer.alloc(8);
  head.writeInt32BE(8 + params.length, 0);
  head.writeInt32BE(196608, 4);
  return Buffer.concat([head, params]);
}

function queryMessage(text: string): Buffer {
  const body = Buffer.from(`${text}\0`);
  const head = Buffer.alloc(5);
  head[0] = 0x51;
  head.writeInt32BE(4 + body.length, 1);
  return Buffer.concat([head, body]);
}

/** Resolves once the server has sent `count` ReadyForQuery messages on `socket`. */
function readyCount(socket: Socket, count: number): Promise<void> {
  return new Promise((ok, fail) => {
    let seen = 0;
    let buf = Buffer.alloc(0);
    socket.on('error', fail);
    socket.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      while (buf.length >= 5 && buf.length >= 1 + buf.readInt32BE(1)) {
        if (buf[0] === 0x5a && ++seen === count) ok();
        buf = buf.subarray(1 + buf.readInt32BE(1));
      }
    });
  });
}

async function rawClient(port: number): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  const ready = readyCount(socket, 1);
  socket.write(startupMessage());
  await ready;
  return socket;
}

describe.skipIf(!isEmbedded())('PGliteWireServer', () => {
  // Started in beforeAll, not while the file is collected (a skipped describe is still collected).
  let db: PGlite;
  let server: PGliteWireServer;
  let port: number;
  beforeAll(async () => {
    db = new PGlite();
    server = new PGliteWireServer(db, { idleInTransactionMs: 1000 });
    port = await server.listen(await freePort());
  });
  afterAll(async () => {
    await server.close();
    await db.close();
  });

  const probe = async () => {
    const url = `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
    // Generous: this checks that the server goes on serving, not how fast.
    const sql = postgres(url, { prepare: false, max: 1, connect_timeout: 30, onnotice: () => {} });
    try {
      return (await sql`select 1 as ok`)[0].ok;
    } finally {
      await sql.end({ timeout: 1 });
    }
  };

  it('serves a client', async () => {
    expect(await probe()).toBe(1);
  });

  it('drops a client that sends an impossible length, and goes on serving the others', async () => {
    for (const garbage of [Buffer.alloc(8), Buffer.from([0x51, 0xff, 0xff, 0xff, 0xff])]) {
      const socket = garbage.length === 8 ? connect(port, '127.0.0.1') : await rawClient(port); // start-up, then a typed message
      const closed = new Promise<void>((ok) => socket.on('close', () => ok()));
      socket.on('error', () => {});
      socket.write(garbage);
      await closed;
      expect(await probe()).toBe(1);
    }
  });

  it('frees the database when a client leaves while its transaction-opening query runs', async () => {
    const socket = await rawClient(port);
    // The query opens a transaction and takes a moment; the client is gone before it finishes.
    socket.write(queryMessage('begin; select count(*) from generate_series(1, 2000000)'));
    socket.destroy();
    expect(await probe()).toBe(1);
  });

  it('takes the database back from a client idle in a transaction for too long', async () => {
    const socket = await rawClient(port);
    const received: Buffer[] = [];
    const closed = new Promise<void>((ok) => socket.on('close', () => ok()));
    const ready = readyCount(socket, 1);
    socket.on('data', (d) => received.push(d));
    socket.write(queryMessage('begin; create table held_rows (a int)'));
    await ready;
    // The client holds an open transaction and sends nothing more; another client still gets through,
    // the quiet one is told why it was disconnected, and its transaction is rolled back.
    expect(await probe()).toBe(1);
    await closed;
    expect(Buffer.concat(received).toString()).toContain('25P03');
    expect((await db.query(`select to_regclass('held_rows') as t`)).rows).toEqual([{ t: null }]);
  });

  it('leaves a quiet transaction alone while nobody else waits', async () => {
    const socket = await rawClient(port);
    const ready = readyCount(socket, 2);
    socket.write(queryMessage('begin'));
    await new Promise((ok) => setTimeout(ok, 2500));
    socket.write(queryMessage('commit'));
    await ready;
    expect(socket.destroyed).toBe(false);
    socket.destroy();
  });
});

describe.skipIf(!isEmbedded())('PGliteWireServer with its default idle timeout', () => {
  // Created in beforeAll, not while the file is collected: a PGlite's start-up holds the event loop for
  // seconds, which would stall the other describe's server and clients sharing this process.
  let db: PGlite;
  let server: PGliteWireServer;
  let port: number;
  beforeAll(async () => {
    db = new PGlite();
    server = new PGliteWireServer(db);
    port = await server.listen(await freePort());
  });
  afterAll(async () => {
    await server.close();
    await db.close();
  });

  it('lets a new connection wait past 5 s behind a transaction instead of timing out', async () => {
    const holder = await rawClient(port);
    const ready = readyCount(holder, 2);
    holder.write(queryMessage('begin'));
    // The service's own connection path (createDb), with no DB_CONNECT_TIMEOUT_S.
    const other = createDb({
      url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres?embedded=pglite`,
      max: 1,
    });
    try {
      // postgres.js queries are lazy: start it now, and keep its outcome (a value or the error).
      const answer = Promise.resolve(other.sql`select 1 as ok`).then(
        (rows) => rows[0].ok,
        (e: Error) => e.message,
      );
      await new Promise((ok) => setTimeout(ok, 6000));
      holder.write(queryMessage('commit'));
      await ready;
      expect(await answer).toBe(1);
    } finally {
      holder.destroy();
      await other.end();
    }
  });
});
