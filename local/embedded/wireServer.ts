// One piece, though over 300 lines: every method of PGliteWireServer reads or changes the same four things
// (the queue of units, the client that holds the session, the clients, whether PGlite is up), and each rule
// below is an order between those changes (a client's close against its running unit, PGlite's failure
// against the queue, the idle timer against the holder); split in two, each half would reach into the
// other's state. What holds no such state is apart: the wire format (protocol.ts, startupPacket.ts) and the
// units handed to PGlite (units.ts).
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import type { PGlite } from '@electric-sql/pglite';
import { log } from '#lib/log.ts';
import {
  cleartextPasswordRequest,
  endWith,
  fatalError,
  PASSWORD_LIMITS,
  passwordOf,
  readMessage,
  startupParameters,
} from './protocol.ts';
import { takeStartupPacket } from './startupPacket.ts';
import {
  bytesNeeded,
  type Client,
  COPY_MESSAGES,
  countReadyRequests,
  FLUSH,
  fixReadyForQuery,
  QUERY,
  STARTUP_PACKET,
  SYNC,
  SYNC_MESSAGE,
  TERMINATE,
  UNIT_BYTES,
  type Unit,
} from './units.ts';

/**
 * Serves one PGlite database to many PostgreSQL wire-protocol clients (docs/connections.md, "The embedded
 * database's wire server").
 *
 * Why our own server: PGlite is a single backend session, and `@electric-sql/pglite-socket` queues each
 * protocol *message* separately, so two clients' extended-protocol sequences (Parse/Bind/Execute/Sync)
 * interleave and one client's Bind meets the other's Parse: wrong or empty results under concurrency
 * (https://github.com/electric-sql/pglite/issues/1046). Here a client holds the session from its first
 * message until its Sync (or simple Query), across round trips, and for as long as it keeps a
 * transaction open; the others queue. Clients must not use named prepared statements (postgres.js
 * `prepare: false`): the session is shared.
 *
 * What reaches PGlite is checked first, because PGlite itself does not survive everything a socket can
 * send (an unknown message type makes it spin forever, a PasswordMessage or CopyDone out of place too):
 * only protocol 3.0 start-ups, only the frontend message types, within PostgreSQL's size limits, from a
 * client that gave the password of this start. Anything else ends that client with a FATAL ErrorResponse.
 * The client's start-up parameters are not applied (a fixed start-up packet is sent to PGlite), and the
 * session is reset (DISCARD ALL) whenever it passes to another client, so one client's SET is never seen
 * by another. If PGlite fails anyway (its WASM exits or throws), every client is ended, new ones are
 * refused with 57P03 while PGlite is opened again on the same data folder, and serving resumes.
 */

const sha256 = (text: string) => createHash('sha256').update(text).digest();

export interface WireServerOptions {
  /** The password every client must give (with user `postgres`): a random one per start. */
  password: string;
  /**
   * How long a client may hold the shared session between two of its messages (inside a transaction or
   * half-way an extended-protocol exchange) while other clients wait. Past it the client is disconnected
   * with SQLSTATE 25P03, as PostgreSQL's idle_in_transaction_session_timeout does, and its transaction
   * rolls back. Without it one stalled client would stop the whole embedded database.
   */
  idleInTransactionMs?: number;
}

export class PGliteWireServer {
  private server: Server | null = null;
  private db: PGlite | null = null;
  private state: 'down' | 'up' | 'restarting' | 'closed' = 'down';
  private idleTimer: NodeJS.Timeout | null = null;
  private readonly idleInTransactionMs: number;
  private readonly passwordHash: Buffer;
  private queue: Unit[] = [];
  /** The client that holds the session (mid-exchange or in a transaction), if any. */
  private owner: Client | null = null;
  /** The client whose statements ran last: the session's settings are its. */
  private lastHolder: Client | null = null;
  private running = false;
  private nextId = 1;
  private clients = new Map<number, Client>();
  /** How many times PGlite was opened again after it failed. */
  restarts = 0;

  /** `open` opens the PGlite database: at `listen`, and again on the same data after it failed. */
  constructor(
    private readonly open: () => Promise<PGlite>,
    options: WireServerOptions,
  ) {
    this.idleInTransactionMs = options.idleInTransactionMs ?? 30_000;
    this.passwordHash = sha256(options.password);
  }

  async listen(port: number, host = '127.0.0.1'): Promise<number> {
    this.db = await this.open();
    await this.db.waitReady;
    this.state = 'up';
    this.server = createServer((socket) => this.accept(socket));
    await new Promise<void>((ok, fail) => {
      this.server!.once('error', fail);
      this.server!.listen(port, host, () => ok());
    });
    return (this.server.address() as { port: number }).port;
  }

  /** Stops serving and closes PGlite. */
  async close(): Promise<void> {
    // A PGlite that failed is not closed: its WASM has exited, and a call into it may never return.
    const wasUp = this.state === 'up';
    this.state = 'closed';
    this.setOwner(null);
    for (const c of this.clients.values()) c.socket.destroy();
    await new Promise<void>((ok) => (this.server ? this.server.close(() => ok()) : ok()));
    this.server = null;
    if (wasUp) await this.db?.close();
    this.db = null;
  }

  private accept(socket: Socket) {
    const client: Client = {
      id: this.nextId++,
      socket,
      phase: 'startup',
      inSession: false,
      user: '',
      buf: Buffer.alloc(0),
      chunks: [],
      received: 0,
      need: 8,
      pending: [],
      pendingBytes: 0,
      queued: 0,
    };
    this.clients.set(client.id, client);
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      // A large message arrives in many chunks: joining each to the rest would copy it over and over.
      client.chunks.push(chunk);
      client.received += chunk.length;
      if (client.received < client.need) return;
      client.buf = Buffer.concat([client.buf, ...client.chunks]);
      client.chunks = [];
      this.read(client);
      client.received = client.buf.length;
      client.need = bytesNeeded(client);
    });
    const gone = () => {
      if (!this.clients.has(client.id)) return;
      client.phase = 'ended';
      this.clients.delete(client.id);
      this.queue = this.queue.filter((u) => u.client !== client);
      void this.release(client);
    };
    socket.on('close', gone);
    socket.on('error', gone);
  }

  /** Ends `client` with a FATAL ErrorResponse; what it sent after is ignored. */
  private refuse(client: Client, sqlstate: string, message: string) {
    client.phase = 'ended';
    this.queue = this.queue.filter((u) => u.client !== client);
    endWith(client.socket, fatalError(sqlstate, message));
  }

  /** Reads what `client` sent, as far as it is whole. */
  private read(client: Client) {
    for (;;) {
      if (client.phase === 'ended') return;
      if (client.phase === 'startup') {
        const got = takeStartupPacket(client.socket, client.buf);
        if (!got) {
          client.phase = 'ended';
          return;
        }
        client.buf = got.rest;
        if (!got.packet) return;
        if (this.state !== 'up') return this.refuse(client, '57P03', 'the database system is starting up');
        const params = startupParameters(got.packet);
        client.user = params.get('user') ?? '';
        const database = params.get('database') ?? client.user;
        if (database !== 'postgres')
          return this.refuse(client, '3D000', `database "${database}" does not exist`);
        client.phase = 'password';
        client.socket.write(cleartextPasswordRequest());
        continue;
      }
      const read = readMessage(client.buf, client.phase === 'password' ? PASSWORD_LIMITS : undefined);
      if (read.kind === 'incomplete') return;
      if (read.kind === 'invalid') return this.refuse(client, '08P01', read.reason);
      client.buf = read.rest;
      if (client.phase === 'password') {
        if (!this.authenticate(client, read.message)) return;
        continue;
      }
      this.take(client, read.type, read.message);
    }
  }

  /** Checks the password (and user); a good one starts the client's session in PGlite. */
  private authenticate(client: Client, message: Buffer): boolean {
    const given = sha256(passwordOf(message));
    if (client.user !== 'postgres' || !timingSafeEqual(given, this.passwordHash)) {
      this.refuse(client, '28P01', `password authentication failed for user "${client.user}"`);
      return false;
    }
    if (this.state !== 'up') {
      this.refuse(client, '57P03', 'the database system is starting up');
      return false;
    }
    client.phase = 'session';
    client.inSession = true;
    this.enqueue({ client, data: STARTUP_PACKET, complete: true, expectedReady: 1 });
    return true;
  }

  /** One message of an established session. */
  private take(client: Client, type: number, message: Buffer) {
    if (type === TERMINATE) {
      client.phase = 'ended';
      client.socket.end();
      return;
    }
    // PGlite cannot run COPY FROM STDIN (its WASM exits), so a session is never in copy-in mode, and
    // PostgreSQL ignores copy messages outside it; PGlite would hang on a CopyDone.
    if (COPY_MESSAGES.has(type)) return;
    client.pending.push(Buffer.from(message));
    client.pendingBytes += message.length;
    // Sync, simple Query and Flush close a unit of work; a long run of messages without them is handed
    // over in parts (the client keeps the session in between).
    if (type === SYNC || type === QUERY || type === FLUSH || client.pendingBytes >= UNIT_BYTES) {
      const messages = client.pending;
      client.pending = [];
      client.pendingBytes = 0;
      this.enqueue({
        client,
        data: Buffer.concat(messages),
        complete: type === SYNC || type === QUERY,
        expectedReady: countReadyRequests(messages),
      });
    }
  }

  private enqueue(unit: Unit) {
    unit.client.queued++;
    unit.client.socket.pause();
    this.queue.push(unit);
    void this.pump();
  }

  /** A client that vanished mid-exchange or inside a transaction must not keep the database. */
  private async release(client: Client) {
    if (this.owner !== client) return;
    try {
      await this.abandon();
    } catch (e) {
      return this.failed(e);
    }
    this.setOwner(null);
    void this.pump();
  }

  /**
   * Ends what a departed client left half-done: its extended-protocol exchange (after an error PGlite skips
   * every message until a Sync, the next client's too) and its transaction. The rollback is not inside
   * `db.runExclusive`: that holds PGlite's query lock, which `exec` takes too, so it would wait for itself
   * and stop the database for every client.
   */
  private async abandon() {
    const db = this.db;
    if (!db) return;
    await db.runExclusive(() => db.execProtocolRawStream(SYNC_MESSAGE, { onRawData: () => {} }));
    if (db.isInTransaction()) await db.exec('rollback');
  }

  /** Sets who holds the session, and watches a holder that goes quiet while others wait. */
  private setOwner(client: Client | null) {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    this.owner = client;
    if (client === null) return;
    const watch = () => {
      this.idleTimer = setTimeout(() => {
        if (this.owner !== client) return;
        const othersWait = this.queue.some((u) => u.client !== client);
        if (!othersWait || this.running) return watch();
        log('warn', 'embedded database: disconnected a client idle in a transaction while others waited', {
          idleMs: this.idleInTransactionMs,
          waiting: new Set(this.queue.map((u) => u.client.id)).size,
        });
        this.refuse(client, '25P03', 'terminating connection due to idle-in-transaction timeout');
      }, this.idleInTransactionMs);
      this.idleTimer.unref();
    };
    watch();
  }

  private async pump() {
    if (this.running) return;
    this.running = true;
    try {
      while (this.state === 'up' && this.db) {
        const db = this.db;
        const i = this.owner === null ? 0 : this.queue.findIndex((u) => u.client === this.owner);
        if (i < 0 || this.queue.length === 0) return;
        const [unit] = this.queue.splice(i, 1);
        const client = unit.client;
        if (--client.queued === 0 && client.phase !== 'ended') client.socket.resume();
        const out: Uint8Array[] = [];
        try {
          // The session passes to another client: nothing the last one set (SET, set_config, SET ROLE,
          // temporary tables, prepared statements) may be seen by this one. Never inside a transaction:
          // a client in one keeps the session.
          if (this.lastHolder !== null && this.lastHolder !== client) await db.exec('discard all');
          this.lastHolder = client;
          await db.runExclusive(() =>
            db.execProtocolRawStream(unit.data, { onRawData: (d: Uint8Array) => out.push(d.slice()) }),
          );
        } catch (e) {
          // SQL errors come back as ErrorResponse messages; a throw is PGlite itself failing.
          this.failed(e);
          return;
        }
        const { data, status } = fixReadyForQuery(Buffer.concat(out), unit.expectedReady);
        // postgres.js sends Parse/Describe/Flush, then Bind/Execute, then Sync in separate round trips:
        // the unnamed statement must not be replaced by another client in between.
        const inTransaction = status === null ? db.isInTransaction() : status !== 'I';
        if (!this.clients.has(client.id) || client.phase === 'ended') {
          // The client left while its unit ran (its close was handled before it held the session):
          // nobody will finish its transaction or exchange, so end them here.
          try {
            if (inTransaction || !unit.complete) await this.abandon();
          } catch (e) {
            this.failed(e);
            return;
          }
          this.setOwner(null);
          continue;
        }
        this.setOwner(!unit.complete || inTransaction ? client : null);
        if (data.length) client.socket.write(data);
      }
    } finally {
      this.running = false;
    }
  }

  /**
   * PGlite failed: its session is gone. Every client is ended (57P02 for those that had a session, as
   * PostgreSQL ends the other sessions after a backend crash; 57P03 for those still connecting), and new
   * ones are refused with 57P03 until PGlite is open again on the same data.
   */
  private failed(error: unknown) {
    if (this.state !== 'up') return;
    this.state = 'restarting';
    // PGlite's WASM exit throws an ExitStatus, which is not an Error.
    const { name, message } = (error ?? {}) as { name?: string; message?: string };
    log('error', 'embedded database: PGlite failed; opening it again on the same data', {
      error: message ? `${name ?? 'Error'}: ${message}` : String(error),
    });
    this.setOwner(null);
    this.lastHolder = null;
    this.queue = [];
    for (const c of this.clients.values()) {
      // One still to send its start-up packet is refused when it arrives, if PGlite is not open by then.
      if (c.phase === 'ended' || c.phase === 'startup') continue;
      if (c.inSession)
        this.refuse(c, '57P02', 'terminating connection because the embedded database failed; it restarts');
      else this.refuse(c, '57P03', 'the database system is starting up');
    }
    void this.reopen();
  }

  private async reopen() {
    for (let attempt = 1; this.state === 'restarting'; attempt++) {
      try {
        const db = await this.open();
        await db.waitReady;
        if (this.state !== 'restarting') return void (await db.close());
        this.db = db;
        this.state = 'up';
        this.restarts++;
        log('warn', 'embedded database: PGlite is open again', { attempt });
        void this.pump();
        return;
      } catch (e) {
        log('error', 'embedded database: PGlite did not open; trying again', { attempt, error: String(e) });
        await new Promise((ok) => setTimeout(ok, Math.min(attempt, 10) * 1000));
      }
    }
  }
}
