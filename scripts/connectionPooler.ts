/**
 * The local stand-in for RDS Proxy (docs/connections.md): a transaction-mode connection pooler between the
 * function instances and a PostgreSQL server. Each instance keeps its own client connections, as on Lambda;
 * a client borrows one of at most `max` server connections from its first message until the server is idle
 * again (ReadyForQuery 'I' with every Sync answered), then gives it back. So the server sees at most `max`
 * connections however many instances a burst starts, and a client never waits forever: after `waitMs`
 * without a free server connection it gets SQLSTATE 53300 (the functions retry once, then answer 503).
 * Clients must not use named prepared statements (`DB_PREPARE=false`), as behind RDS Proxy or PgBouncer.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Socket } from 'node:net';
import { freePort } from '../lib/db/embedded.ts';
import { takeStartupPacket } from '../lib/db/startupPacket.ts';
import {
  errorResponse,
  message,
  startupParams,
  type Upstream,
  UpstreamError,
  upstreamOf,
} from './pgUpstream.ts';
import { ClientStatements, type ServerSession } from './pooledStatements.ts';
import { MessageAssembler } from './protocolFramer.ts';
import { type PooledServer, PoolTimeout, ServerPool } from './serverPool.ts';

export interface PoolerOptions {
  /** The PostgreSQL server (`DATABASE_URL`). */
  upstreamUrl: string;
  /** Server connections at most (`DB_POOLER_MAX`). */
  max: number;
  /** A client waits this long for a server connection before it is refused with 53300. */
  waitMs?: number;
  /** Idle server connections close after this long. */
  idleMs?: number;
  connectTimeoutMs?: number;
}

export interface PoolerStats {
  /** Server connections at most. */
  max: number;
  clients: number;
  peakClients: number;
  serverConnections: number;
  peakServerConnections: number;
  waiting: number;
}

export interface ConnectionPooler {
  /** `upstreamUrl` with the pooler's host and port: what the functions connect to. */
  url: string;
  stats(): PoolerStats;
  stop(): Promise<void>;
}

interface Client {
  socket: Socket;
  key: string;
  params: Record<string, string>;
  messages: MessageAssembler;
  statements: ClientStatements;
  server: PooledServer<Client> | null;
  outbox: Buffer[];
  acquiring: boolean;
  /** ReadyForQuery messages still owed to the client (one per Sync, Query or FunctionCall it sent). */
  owed: number;
}

export async function startConnectionPooler(options: PoolerOptions): Promise<ConnectionPooler> {
  const up: Upstream = upstreamOf(options.upstreamUrl);
  const waitMs = options.waitMs ?? 10_000;
  const clients = new Set<Socket>();
  let peakClients = 0;
  const pool: ServerPool<Client> = new ServerPool(up, {
    max: options.max,
    waitMs,
    idleMs: options.idleMs ?? 30_000,
    connectTimeoutMs: options.connectTimeoutMs ?? 5_000,
    onData: (s, chunk) => fromServer(s, chunk),
    onLost: (c) => c.socket.destroy(),
  });

  function fromServer(s: PooledServer<Client>, chunk: Buffer) {
    const c = s.client!;
    let answer: ReturnType<ServerSession['answer']>;
    try {
      answer = s.session.answer(chunk);
    } catch {
      return pool.drop(s);
    }
    c.owed -= answer.readies;
    if (answer.out.length > 0) c.socket.write(answer.out);
    if (answer.readies > 0 && s.session.framer.status === 'I' && c.owed <= 0 && s.session.settled()) {
      c.server = null;
      c.owed = 0;
      pool.release(s);
    }
  }

  const refusal = (e: unknown) =>
    e instanceof UpstreamError
      ? { code: e.code, text: e.message }
      : e instanceof PoolTimeout
        ? {
            code: '53300',
            text: `sorry, too many clients already: no free database connection within ${waitMs} ms`,
          }
        : { code: '08001', text: `could not connect to the database server: ${(e as Error).message}` };

  /** A connection that cannot start is refused as PostgreSQL refuses it: a FATAL error, then closed. */
  function refuseStartup(socket: Socket, e: unknown) {
    const { code, text } = refusal(e);
    socket.end(e instanceof UpstreamError ? e.response : errorResponse(code, text));
  }

  /**
   * Queries that found no server connection fail with an ERROR (each pipelined query gets its own, with the
   * ReadyForQuery it waits for); the client connection stays usable for the next try.
   */
  function failWaiting(c: Client, e: unknown) {
    const { code, text } = refusal(e);
    const out: Buffer[] = [];
    let open = false;
    for (const m of c.outbox.splice(0)) {
      open = true;
      if (m[0] === 0x53 || m[0] === 0x51 || m[0] === 0x46) {
        out.push(errorResponse(code, text, 'ERROR'), message('Z', Buffer.from('I')));
        open = false;
      }
    }
    if (open) out.push(errorResponse(code, text, 'ERROR'));
    c.owed = 0;
    if (out.length > 0) c.socket.write(Buffer.concat(out));
  }

  /** Sends the client's waiting messages to its server connection, renaming its statements. */
  function flush(c: Client, s: PooledServer<Client>) {
    const out: Buffer[] = [];
    for (const m of c.outbox.splice(0)) if (c.statements.route(m, s.session, out)) c.owed++;
    if (out.length > 0) s.socket.write(out.length === 1 ? out[0] : Buffer.concat(out));
  }

  function fromClient(c: Client, chunk: Buffer) {
    let messages: Buffer[];
    try {
      messages = c.messages.push(chunk);
    } catch {
      return void c.socket.destroy();
    }
    for (const m of messages) {
      if (m[0] === 0x58 /* Terminate */) return void c.socket.end();
      c.outbox.push(m);
    }
    if (c.server) return flush(c, c.server);
    if (c.acquiring || c.outbox.length === 0) return;
    c.acquiring = true;
    pool.acquire(c.key, c.params).then(
      (s) => {
        c.acquiring = false;
        if (c.socket.destroyed) return pool.release(s);
        s.client = c;
        c.server = s;
        flush(c, s);
      },
      (e) => {
        c.acquiring = false;
        failWaiting(c, e);
      },
    );
  }

  async function startup(socket: Socket, body: Buffer): Promise<Client> {
    const params = startupParams(body);
    delete params.user;
    delete params.database;
    const key = JSON.stringify(Object.entries(params).sort());
    const c: Client = {
      socket,
      key,
      params,
      messages: new MessageAssembler(),
      statements: new ClientStatements(),
      server: null,
      outbox: [],
      acquiring: false,
      owed: 0,
    };
    if (!pool.parameters.has(key)) pool.release(await pool.acquire(key, params));
    const keyData = Buffer.alloc(8);
    randomBytes(8).copy(keyData);
    socket.write(
      Buffer.concat([
        message('R', Buffer.from([0, 0, 0, 0])),
        ...(pool.parameters.get(key) ?? []),
        message('K', keyData),
        message('Z', Buffer.from('I')),
      ]),
    );
    return c;
  }

  function accept(socket: Socket) {
    socket.setNoDelay(true);
    clients.add(socket);
    peakClients = Math.max(peakClients, clients.size);
    let client: Client | null = null;
    let head: Buffer = Buffer.alloc(0);
    let starting = false;
    const early: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => {
      if (client) return fromClient(client, chunk);
      if (starting) return void early.push(chunk);
      const got = takeStartupPacket(socket, head.length ? Buffer.concat([head, chunk]) : chunk);
      if (!got) return;
      head = got.rest;
      if (!got.packet) return;
      starting = true;
      if (head.length > 0) early.push(head);
      startup(socket, got.packet.subarray(8)).then(
        (c) => {
          client = c;
          for (const b of early.splice(0)) fromClient(c, b);
        },
        (e) => refuseStartup(socket, e),
      );
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      clients.delete(socket);
      const s = client?.server;
      // A client gone in the middle of an exchange leaves the server connection in an unknown state.
      if (s) pool.drop(s);
    });
  }

  const port = await freePort();
  const listener = createServer(accept);
  await new Promise<void>((ok) => listener.listen(port, '127.0.0.1', ok));
  const url = new URL(options.upstreamUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  url.searchParams.delete('host');
  url.searchParams.delete('sslmode');
  return {
    url: url.toString(),
    stats: () => ({
      max: options.max,
      clients: clients.size,
      peakClients,
      serverConnections: pool.size,
      peakServerConnections: pool.peak,
      waiting: pool.waiting,
    }),
    async stop() {
      const closed = new Promise((ok) => listener.close(ok));
      for (const s of clients) s.destroy();
      pool.stop();
      await closed;
    },
  };
}
