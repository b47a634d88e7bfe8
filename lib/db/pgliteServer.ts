import { createServer, type Server, type Socket } from 'node:net';
import type { PGlite } from '@electric-sql/pglite';
import { log } from '../log.ts';
import { takeStartupPacket } from './startupPacket.ts';

interface Batch {
  conn: number;
  data: Uint8Array;
  socket: Socket;
  /** Ends with Sync or a simple Query: the client's exchange is complete (unless in a transaction). */
  complete: boolean;
  /** ReadyForQuery messages the client expects for this unit (one per Sync/Query, one for startup). */
  expectedReady: number;
}

/**
 * PGlite answers an error with ErrorResponse + ReadyForQuery at once, and the client's Sync then gets a
 * second ReadyForQuery; a pipelining client (postgres.js) takes the extra one as the end of its next
 * query, which then comes back empty. Keep only as many ReadyForQuery messages as the client asked for
 * (the last ones), and report the transaction status of the last ('I' idle, 'T' in a transaction,
 * 'E' failed transaction).
 */
export function fixReadyForQuery(raw: Buffer, expected: number): { data: Buffer; status: string | null } {
  const messages: Buffer[] = [];
  for (let o = 0; o + 5 <= raw.length; ) {
    const len = 1 + raw.readInt32BE(o + 1);
    messages.push(raw.subarray(o, o + len));
    o += len;
  }
  let extra = messages.filter((m) => m[0] === 0x5a).length - expected;
  const kept = messages.filter((m) => !(m[0] === 0x5a && extra-- > 0));
  const ready = kept.filter((m) => m[0] === 0x5a).at(-1);
  return { data: Buffer.concat(kept), status: ready ? String.fromCharCode(ready[5]) : null };
}

function countReadyRequests(data: Uint8Array): number {
  const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  let n = 0;
  for (let o = 0; o + 5 <= buf.length; o += 1 + buf.readInt32BE(o + 1)) {
    if (buf[o] === 0x53 || buf[o] === 0x51) n++;
  }
  return n;
}

export interface WireServerOptions {
  /**
   * How long a client may hold the shared session between two of its messages (inside a transaction or
   * half-way an extended-protocol exchange) while other clients wait. Past it the client is disconnected
   * with SQLSTATE 25P03, as PostgreSQL's idle_in_transaction_session_timeout does, and its transaction
   * rolls back. Without it one stalled client would stop the whole embedded database.
   */
  idleInTransactionMs?: number;
}

/**
 * Serves one PGlite database to many PostgreSQL wire-protocol clients.
 *
 * PGlite is a single backend session. `@electric-sql/pglite-socket` queues each protocol *message*
 * separately, so two clients' extended-protocol sequences (Parse/Bind/Execute/Sync) can interleave and
 * one client's Bind can meet the other's Parse: wrong or empty results under concurrency. Here a client
 * keeps the database from its first message until its Sync (or simple Query), across round trips, and
 * while it holds an open transaction no other client runs. Clients must not use named prepared statements (postgres.js
 * `prepare: false`): names would collide in the shared session.
 */
export class PGliteWireServer {
  private server: Server | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  private readonly idleInTransactionMs: number;
  private queue: Batch[] = [];
  private owner: number | null = null;
  private running = false;
  private nextId = 1;
  private sockets = new Map<number, Socket>();

  constructor(
    private readonly db: PGlite,
    options: WireServerOptions = {},
  ) {
    this.idleInTransactionMs = options.idleInTransactionMs ?? 30_000;
  }

  async listen(port: number, host = '127.0.0.1'): Promise<number> {
    await this.db.waitReady;
    this.server = createServer((socket) => this.accept(socket));
    await new Promise<void>((ok, fail) => {
      this.server!.once('error', fail);
      this.server!.listen(port, host, () => ok());
    });
    return (this.server.address() as { port: number }).port;
  }

  async close(): Promise<void> {
    this.setOwner(null);
    for (const s of this.sockets.values()) s.destroy();
    await new Promise<void>((ok) => (this.server ? this.server.close(() => ok()) : ok()));
    this.server = null;
  }

  private accept(socket: Socket) {
    const conn = this.nextId++;
    this.sockets.set(conn, socket);
    socket.setNoDelay(true);
    let buf: Buffer = Buffer.alloc(0);
    let started = false;
    let pending: Buffer[] = [];
    socket.on('data', (chunk) => {
      buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
      for (;;) {
        if (!started) {
          const got = takeStartupPacket(socket, buf);
          if (!got) return;
          buf = got.rest;
          if (!got.packet) return;
          started = true;
          this.enqueue({
            conn,
            data: Uint8Array.from(got.packet),
            socket,
            complete: true,
            expectedReady: 1,
          });
          continue;
        }
        if (buf.length < 5) return;
        const len = 1 + buf.readInt32BE(1);
        if (len < 5) return void socket.destroy(); // a length below its own 4 bytes: no client sends it
        if (buf.length < len) return;
        const type = buf[0];
        const msg = buf.subarray(0, len);
        buf = buf.subarray(len);
        if (type === 0x58 /* X: Terminate */) {
          socket.end();
          return;
        }
        pending.push(Buffer.from(msg));
        // Sync, simple Query, Flush and the end of COPY data close a unit of work.
        if (type === 0x53 || type === 0x51 || type === 0x48 || type === 0x63 || type === 0x66) {
          const data = Uint8Array.from(Buffer.concat(pending));
          this.enqueue({
            conn,
            data,
            socket,
            complete: type === 0x53 || type === 0x51,
            expectedReady: countReadyRequests(data),
          });
          pending = [];
        }
      }
    });
    const gone = () => {
      if (!this.sockets.has(conn)) return;
      this.sockets.delete(conn);
      this.queue = this.queue.filter((b) => b.conn !== conn);
      void this.release(conn);
    };
    socket.on('close', gone);
    socket.on('error', gone);
  }

  /** A client that vanished inside a transaction must not keep the database. */
  private async release(conn: number) {
    if (this.owner !== conn) return;
    await this.rollback();
    this.setOwner(null);
    void this.pump();
  }

  /**
   * Not inside `db.runExclusive`: that holds PGlite's query lock, which `exec` takes too, so the rollback
   * would wait for itself and stop the database for every client.
   */
  private async rollback() {
    if (this.db.isInTransaction()) await this.db.exec('rollback');
  }

  /** Sets who holds the session, and watches a holder that goes quiet while others wait. */
  private setOwner(conn: number | null) {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    this.owner = conn;
    if (conn === null) return;
    const watch = () => {
      this.idleTimer = setTimeout(() => {
        const othersWait = this.queue.some((b) => b.conn !== conn);
        if (this.owner !== conn) return;
        if (!othersWait || this.running) return watch();
        const socket = this.sockets.get(conn);
        if (!socket) return;
        log('warn', 'embedded database: disconnected a client idle in a transaction while others waited', {
          idleMs: this.idleInTransactionMs,
          waiting: new Set(this.queue.map((b) => b.conn)).size,
        });
        socket.end(idleTimeoutError());
        socket.destroy();
      }, this.idleInTransactionMs);
      this.idleTimer.unref();
    };
    watch();
  }

  private enqueue(b: Batch) {
    this.queue.push(b);
    void this.pump();
  }

  private async pump() {
    if (this.running) return;
    this.running = true;
    try {
      for (;;) {
        const i = this.owner === null ? 0 : this.queue.findIndex((b) => b.conn === this.owner);
        if (i < 0 || this.queue.length === 0) return;
        const [b] = this.queue.splice(i, 1);
        const out: Uint8Array[] = [];
        try {
          await this.db.runExclusive(() =>
            this.db.execProtocolRawStream(b.data, { onRawData: (d: Uint8Array) => out.push(d.slice()) }),
          );
        } catch (e) {
          b.socket.destroy(e as Error);
          continue;
        }
        const { data, status } = fixReadyForQuery(Buffer.concat(out), b.expectedReady);
        // postgres.js sends Parse/Describe/Flush, then Bind/Execute, then Sync in separate round trips:
        // the unnamed statement must not be replaced by another client in between.
        const inTransaction = status === null ? this.db.isInTransaction() : status !== 'I';
        if (!this.sockets.has(b.conn)) {
          // The client left while its batch ran (its close was handled before it held the session):
          // nobody will finish its transaction or exchange, so end them here.
          if (inTransaction) await this.rollback();
          this.setOwner(null);
          continue;
        }
        this.setOwner(!b.complete || inTransaction ? b.conn : null);
        if (!b.socket.destroyed && data.length) b.socket.write(data);
      }
    } finally {
      this.running = false;
    }
  }
}

/** FATAL ErrorResponse 25P03, as PostgreSQL sends when it ends an idle-in-transaction session. */
function idleTimeoutError(): Buffer {
  const fields = ['SFATAL', 'VFATAL', 'C25P03', 'Mterminating connection due to idle-in-transaction timeout'];
  const body = Buffer.from(`${fields.join('\0')}\0\0`);
  const head = Buffer.alloc(5);
  head[0] = 0x45;
  head.writeInt32BE(4 + body.length, 1);
  return Buffer.concat([head, body]);
}
