/**
 * The server side of the local connection pooler (scripts/connectionPooler.ts): at most `max` open
 * connections to PostgreSQL, idle ones kept per set of start-up settings, and a queue of borrowers that
 * gives up after `waitMs` (PoolTimeout).
 */
import type { Socket } from 'node:net';
import { openServerConnection, type Upstream } from './pgUpstream.ts';
import { ServerSession } from './pooledStatements.ts';

export interface PooledServer<C> {
  socket: Socket;
  /** The start-up settings it was opened with. */
  key: string;
  session: ServerSession;
  /** The client borrowing it, if any. */
  client: C | null;
  idleTimer?: NodeJS.Timeout;
}

interface Waiter<C> {
  key: string;
  params: Record<string, string>;
  ok: (s: PooledServer<C>) => void;
  fail: (e: Error) => void;
  timer: NodeJS.Timeout;
}

export class PoolTimeout extends Error {}

export interface ServerPoolOptions<C> {
  max: number;
  waitMs: number;
  idleMs: number;
  connectTimeoutMs: number;
  /** Bytes from a borrowed server connection. */
  onData: (s: PooledServer<C>, chunk: Buffer) => void;
  /** A borrowed server connection closed. */
  onLost: (client: C) => void;
}

export class ServerPool<C> {
  private idle = new Map<string, PooledServer<C>[]>();
  private waiters: Waiter<C>[] = [];
  private servers = new Set<PooledServer<C>>();
  private opening = 0;
  /** The ParameterStatus messages each set of settings starts with (replayed to clients). */
  readonly parameters = new Map<string, Buffer[]>();
  peak = 0;

  constructor(
    private readonly up: Upstream,
    private readonly o: ServerPoolOptions<C>,
  ) {}

  get size(): number {
    return this.servers.size + this.opening;
  }

  get waiting(): number {
    return this.waiters.length;
  }

  /** A free server connection: an idle one, a new one below `max`, or the next one released. */
  acquire(key: string, params: Record<string, string>): Promise<PooledServer<C>> {
    const s = this.idle.get(key)?.pop();
    if (s) {
      clearTimeout(s.idleTimer);
      return Promise.resolve(s);
    }
    if (this.size >= this.o.max) {
      // An idle connection opened with other settings gives way.
      const other = [...this.idle.values()].find((l) => l.length > 0)?.[0];
      if (other) this.drop(other);
    }
    if (this.size < this.o.max) return this.open(key, params);
    return new Promise((ok, fail) => {
      const w: Waiter<C> = {
        key,
        params,
        ok,
        fail,
        timer: setTimeout(() => {
          this.waiters.splice(this.waiters.indexOf(w), 1);
          fail(new PoolTimeout());
        }, this.o.waitMs),
      };
      this.waiters.push(w);
    });
  }

  /** Gives a server connection back: to a waiter, to the idle list, or closed if it should be renewed. */
  release(s: PooledServer<C>) {
    s.client = null;
    // A session with many statements (SQL built per request) is renewed rather than grown without end.
    if (!s.session.settled() || s.session.prepared.size > 2000) return this.drop(s);
    const i = this.waiters.findIndex((w) => w.key === s.key);
    if (i >= 0) {
      const [w] = this.waiters.splice(i, 1);
      clearTimeout(w.timer);
      return w.ok(s);
    }
    if (this.waiters.length > 0) return this.drop(s);
    const list = this.idle.get(s.key) ?? [];
    this.idle.set(s.key, list);
    list.push(s);
    s.idleTimer = setTimeout(() => this.drop(s), this.o.idleMs);
  }

  /** Closes a server connection (its state is unknown, it is idle too long, or it must give way). */
  drop(s: PooledServer<C>) {
    clearTimeout(s.idleTimer);
    const list = this.idle.get(s.key);
    if (list?.includes(s)) list.splice(list.indexOf(s), 1);
    if (this.servers.delete(s)) s.socket.destroy();
    this.serveWaiter();
  }

  stop() {
    for (const w of this.waiters.splice(0)) clearTimeout(w.timer);
    for (const s of [...this.servers]) this.drop(s);
  }

  private async open(key: string, params: Record<string, string>): Promise<PooledServer<C>> {
    this.opening++;
    this.peak = Math.max(this.peak, this.size);
    let conn: Awaited<ReturnType<typeof openServerConnection>>;
    try {
      conn = await openServerConnection(this.up, params, this.o.connectTimeoutMs);
    } catch (e) {
      this.opening--;
      this.serveWaiter();
      throw e;
    }
    this.opening--;
    this.parameters.set(key, conn.parameters);
    const s: PooledServer<C> = { socket: conn.socket, key, session: new ServerSession(), client: null };
    this.servers.add(s);
    s.socket.on('data', (chunk: Buffer) => {
      if (s.client) this.o.onData(s, chunk);
    });
    s.socket.on('error', () => {});
    s.socket.on('close', () => {
      if (s.client) this.o.onLost(s.client);
      this.drop(s);
    });
    return s;
  }

  private serveWaiter() {
    const w = this.waiters[0];
    if (!w || this.size >= this.o.max) return;
    this.waiters.shift();
    clearTimeout(w.timer);
    this.open(w.key, w.params).then(w.ok, w.fail);
  }
}
