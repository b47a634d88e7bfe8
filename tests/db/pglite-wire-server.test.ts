import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionFailure } from '#lib/db/connectionErrors.ts';
import { createDb } from '#lib/db/index.ts';
import { freePort } from '../../local/embedded/start.ts';
import { PGliteWireServer } from '../../local/embedded/wireServer.ts';
import { isEmbedded } from '../helpers.ts';

/**
 * The embedded database's wire server: one PGlite session shared by every client (docs/connections.md).
 * Each test starts its own PGlite, whatever the run's database, so the file runs once: in the embedded run.
 */

const PASSWORD = 'the-password-of-this-start';

function startupPacket(version = 196608, params = 'user\0postgres\0database\0postgres\0\0'): Buffer {
  const body = Buffer.from(params);
  const head = Buffer.alloc(8);
  head.writeInt32BE(8 + body.length, 0);
  head.writeInt32BE(version, 4);
  return Buffer.concat([head, body]);
}

function message(type: string, body: Buffer | string): Buffer {
  const b = Buffer.from(body);
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(4 + b.length, 1);
  return Buffer.concat([head, b]);
}

const queryMessage = (text: string) => message('Q', `${text}\0`);
const passwordMessage = (password: string) => message('p', `${password}\0`);

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

/** Everything the server sends on `socket` until it closes the connection. */
function allUntilClosed(socket: Socket): Promise<string> {
  const received: Buffer[] = [];
  socket.on('data', (d) => received.push(d));
  socket.on('error', () => {});
  return new Promise((ok) => socket.on('close', () => ok(Buffer.concat(received).toString('latin1'))));
}

/** A raw client past start-up and authentication. */
async function rawClient(port: number): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  const ready = readyCount(socket, 1);
  socket.write(Buffer.concat([startupPacket(), passwordMessage(PASSWORD)]));
  await ready;
  return socket;
}

const urlOf = (port: number, password = PASSWORD, user = 'postgres') =>
  `postgres://${user}:${password}@127.0.0.1:${port}/postgres`;

function client(port: number, options: { password?: string; user?: string; connection?: object } = {}) {
  // Generous connect timeout: these check that the server goes on serving, not how fast.
  return postgres(urlOf(port, options.password, options.user), {
    prepare: false,
    max: 1,
    connect_timeout: 30,
    onnotice: () => {},
    connection: options.connection as Record<string, string>,
  });
}

async function probe(port: number): Promise<number> {
  const sql = client(port);
  try {
    return (await sql`select 1 as ok`)[0].ok;
  } finally {
    await sql.end({ timeout: 1 });
  }
}

/** The error a query through a new client fails with. */
async function failureOf(sql: postgres.Sql): Promise<{ code?: string } & Error> {
  try {
    await sql`select 1`;
  } catch (e) {
    return e as Error;
  } finally {
    await sql.end({ timeout: 1 });
  }
  throw new Error('the query succeeded');
}

describe.skipIf(!isEmbedded())('PGliteWireServer', () => {
  // Started in beforeAll, not while the file is collected (a skipped describe is still collected).
  let db: PGlite;
  let server: PGliteWireServer;
  let port: number;
  beforeAll(async () => {
    server = new PGliteWireServer(async () => (db = new PGlite()), {
      password: PASSWORD,
      idleInTransactionMs: 1000,
    });
    port = await server.listen(await freePort());
  });
  afterAll(() => server.close());

  it('serves a client', async () => {
    expect(await probe(port)).toBe(1);
  });

  it('ends a client that sends a message of an unknown type with FATAL 08P01, and goes on serving', async () => {
    // Forwarded to PGlite, these 9 bytes made it spin forever: every client, and the process, stopped.
    const socket = await rawClient(port);
    const answer = allUntilClosed(socket);
    socket.write(Buffer.from([0x7a, 0, 0, 0, 8, 1, 2, 3, 4]));
    expect(await answer).toMatch(/SFATAL.*C08P01.*invalid frontend message type 122/s);
    expect(await probe(port)).toBe(1);
  });

  it('ends a client that sends an impossible or too large length, before the rest arrives', async () => {
    for (const garbage of [
      Buffer.from([0x51, 0xff, 0xff, 0xff, 0xff]), // Query, negative length
      Buffer.from([0x51, 0, 0, 0, 3]), // Query, below its own 4 bytes
      Buffer.from([0x53, 0, 0, 0x4e, 0x25]), // Sync of 20,005 bytes (PostgreSQL's limit: 10,000)
      Buffer.from([0x51, 0x7f, 0xff, 0xff, 0xff]), // Query of 2 GB (limit: 1 GB)
    ]) {
      const socket = await rawClient(port);
      const answer = allUntilClosed(socket);
      socket.write(garbage);
      expect(await answer).toMatch(/SFATAL.*C08P01.*invalid message length/s);
    }
    expect(await probe(port)).toBe(1);
  });

  it('takes a message of many megabytes, received in many chunks', async () => {
    const sql = client(port);
    try {
      const text = 'x'.repeat(24 * 1024 * 1024);
      expect((await sql`select length(${text}) as n`)[0].n).toBe(text.length);
    } finally {
      await sql.end({ timeout: 1 });
    }
  });

  it('accepts only protocol 3.0 start-ups; answers SSLRequest with N and closes on CancelRequest', async () => {
    for (const version of [0x20000, 0x30001, 0x40000]) {
      const socket = connect(port, '127.0.0.1');
      const answer = allUntilClosed(socket);
      socket.write(startupPacket(version));
      expect(await answer).toMatch(/SFATAL.*C0A000.*unsupported frontend protocol/s);
    }
    const bad = connect(port, '127.0.0.1');
    const badAnswer = allUntilClosed(bad);
    bad.write(Buffer.from([0, 0, 0, 4, 0, 0, 0, 0])); // length below 8
    expect(await badAnswer).toMatch(/SFATAL.*C08P01.*invalid length of startup packet/s);

    const cancel = connect(port, '127.0.0.1');
    const cancelAnswer = allUntilClosed(cancel);
    const cancelRequest = Buffer.alloc(16);
    cancelRequest.writeInt32BE(16, 0);
    cancelRequest.writeInt32BE(80877102, 4);
    cancel.write(cancelRequest);
    expect(await cancelAnswer).toBe('');

    const ssl = connect(port, '127.0.0.1');
    const sslRequest = Buffer.alloc(8);
    sslRequest.writeInt32BE(8, 0);
    sslRequest.writeInt32BE(80877103, 4);
    const declined = new Promise<string>((ok) => ssl.once('data', (d) => ok(d.toString('latin1'))));
    ssl.write(sslRequest);
    expect(await declined).toBe('N');
    const ready = readyCount(ssl, 1);
    ssl.write(Buffer.concat([startupPacket(), passwordMessage(PASSWORD)]));
    await ready;
    ssl.destroy();
  });

  it('ends a client that sends a PasswordMessage after authentication; ignores copy messages', async () => {
    const socket = await rawClient(port);
    // Outside COPY FROM STDIN, PostgreSQL ignores copy messages; forwarded, a CopyDone made PGlite spin.
    const ready = readyCount(socket, 1);
    socket.write(Buffer.concat([message('c', ''), message('d', 'x'), queryMessage('select 1')]));
    await ready;
    const answer = allUntilClosed(socket);
    socket.write(passwordMessage(PASSWORD));
    expect(await answer).toMatch(/SFATAL.*C08P01.*invalid frontend message type 112/s);
    expect(await probe(port)).toBe(1);
  });

  it('refuses a wrong password, a wrong user, another database, and a query before the password', async () => {
    expect((await failureOf(client(port, { password: 'guess' }))).code).toBe('28P01');
    expect((await failureOf(client(port, { user: 'admin' }))).code).toBe('28P01');
    const other = postgres(`${urlOf(port).replace(/\/postgres$/, '/other')}`, {
      max: 1,
      connect_timeout: 30,
    });
    expect((await failureOf(other)).code).toBe('3D000');

    const socket = connect(port, '127.0.0.1');
    const answer = allUntilClosed(socket);
    socket.write(Buffer.concat([startupPacket(), queryMessage('select 1')]));
    // It was asked for a password (AuthenticationCleartextPassword: R, length 8, code 3) and sent a query.
    const passwordRequest = Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 3]).toString('latin1');
    const got = await answer;
    expect(got.startsWith(passwordRequest)).toBe(true);
    expect(got.slice(passwordRequest.length)).toMatch(/^E.*SFATAL.*C08P01/s);
  });

  it("keeps one client's session settings from every other client", async () => {
    const a = client(port, { connection: { search_path: 'a_schema', application_name: 'client_a' } });
    const b = client(port);
    try {
      await a`create schema if not exists a_schema`;
      await a`set statement_timeout = 1234`;
      await a`select set_config('app.tenant', 'a', false)`;
      await a.unsafe('create role wire_a_role; set role wire_a_role');
      const seen = async (sql: postgres.Sql) =>
        (
          await sql`select current_setting('statement_timeout') as timeout,
            current_setting('search_path') as path, current_setting('application_name') as app,
            coalesce(current_setting('app.tenant', true), '') as tenant, current_user as role`
        )[0];
      // A still connected, B asks: it sees none of A's settings, start-up parameters included.
      expect(await seen(b)).toEqual({ timeout: '0', path: 'public', app: '', tenant: '', role: 'postgres' });
      // Settings made inside a transaction (SET LOCAL, or SET) are the transaction's client's only.
      await a.begin(async (tx) => {
        await tx`set local statement_timeout = 4321`;
        expect((await tx`select current_setting('statement_timeout') as t`)[0].t).toBe('4321ms');
      });
      expect((await seen(b)).timeout).toBe('0');
    } finally {
      await a.end({ timeout: 1 });
      await b.end({ timeout: 1 });
    }
  });

  it('frees the database when a client leaves while its transaction-opening query runs', async () => {
    const socket = await rawClient(port);
    // The query opens a transaction and takes a moment; the client is gone before it finishes.
    socket.write(queryMessage('begin; select count(*) from generate_series(1, 2000000)'));
    socket.destroy();
    expect(await probe(port)).toBe(1);
  });

  it('ends the half-done exchange of a client that leaves, so the next client is not skipped', async () => {
    const other = client(port);
    try {
      expect((await other`select 1 as ok`)[0].ok).toBe(1); // connected before
      const socket = await rawClient(port);
      // A Parse that fails, then Flush: PGlite now skips every message until a Sync.
      const answered = new Promise<string>((ok) => socket.once('data', (d) => ok(d.toString('latin1'))));
      socket.write(Buffer.concat([message('P', Buffer.from([1, 2])), message('H', '')]));
      expect(await answered).toMatch(/SERROR.*C08P01/s);
      socket.destroy();
      expect(await other`select 2 as ok`).toEqual([{ ok: 2 }]);
    } finally {
      await other.end({ timeout: 1 });
    }
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
    expect(await probe(port)).toBe(1);
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

describe.skipIf(!isEmbedded())('PGliteWireServer when PGlite fails', () => {
  let dataDir: string;
  let server: PGliteWireServer;
  let port: number;
  /** The reopening waits for this, so that the test sees the server while PGlite is down. */
  let letReopen: () => void;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'wire-server-pglite-'));
    const reopenAllowed = new Promise<void>((ok) => (letReopen = ok));
    let opened = 0;
    server = new PGliteWireServer(
      async () => {
        if (opened++ > 0) await reopenAllowed;
        return PGlite.create({ dataDir });
      },
      { password: PASSWORD },
    );
    port = await server.listen(await freePort());
  });
  afterAll(async () => {
    letReopen();
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('ends its clients, refuses new ones with 57P03 (a 503), and serves again on the same data', async () => {
    const writer = client(port);
    await writer`create table kept (a int)`;
    await writer`insert into kept values (42)`;
    await writer.end();

    // PGlite 0.5's WASM exits on COPY FROM STDIN: a real failure of PGlite, not a simulated one.
    const socket = await rawClient(port);
    const answer = allUntilClosed(socket);
    socket.write(queryMessage('copy kept from stdin'));
    expect(await answer).toMatch(/SFATAL.*C57P02/s);

    const refused = await failureOf(client(port));
    expect(refused.code).toBe('57P03');
    expect(connectionFailure(refused)).toBe('refused');

    letReopen();
    let rows: { a: number }[] = [];
    for (let i = 0; i < 60 && rows.length === 0; i++) {
      const reader = client(port);
      try {
        rows = await reader`select a from kept`;
      } catch (e) {
        if ((e as { code?: string }).code !== '57P03') throw e;
        await new Promise((ok) => setTimeout(ok, 500));
      } finally {
        await reader.end({ timeout: 1 });
      }
    }
    expect(rows).toEqual([{ a: 42 }]);
    expect(server.restarts).toBe(1);
  });
});

describe.skipIf(!isEmbedded())('PGliteWireServer with its default idle timeout', () => {
  // Created in beforeAll, not while the file is collected: a PGlite's start-up holds the event loop for
  // seconds, which would stall the other describe's server and clients sharing this process.
  let server: PGliteWireServer;
  let port: number;
  beforeAll(async () => {
    server = new PGliteWireServer(async () => new PGlite(), { password: PASSWORD });
    port = await server.listen(await freePort());
  });
  afterAll(() => server.close());

  it('lets a new connection wait past 5 s behind a transaction instead of timing out', async () => {
    const holder = await rawClient(port);
    const ready = readyCount(holder, 2);
    holder.write(queryMessage('begin'));
    // The service's own connection path (createDb), with no DB_CONNECT_TIMEOUT_S.
    const other = createDb({ url: `${urlOf(port)}?embedded=pglite`, max: 1 });
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
