/**
 * One server connection of the local connection pooler (scripts/connectionPooler.ts): opens a socket to
 * PostgreSQL, sends the startup message, authenticates (trust, cleartext, MD5 or SCRAM-SHA-256 with the
 * password of `DATABASE_URL`) and waits for the first ReadyForQuery. After that the pooler forwards raw
 * protocol bytes; this module only frames the PostgreSQL v3 wire protocol.
 */
import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';

export interface Upstream {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
}

/** Where `url` points, with its credentials (the pooler's own URL keeps the user, database and password). */
export function upstreamOf(url: string): Upstream {
  const u = new URL(url);
  const host = decodeURIComponent(u.hostname || u.searchParams.get('host') || '127.0.0.1');
  return {
    host: host.replace(/^\[|\]$/g, ''),
    port: Number(u.port || 5432),
    user: decodeURIComponent(u.username) || 'postgres',
    password: decodeURIComponent(u.password),
    database: decodeURIComponent(u.pathname.slice(1)) || decodeURIComponent(u.username) || 'postgres',
  };
}

/** A protocol message: type byte, int32 length, body. */
export function message(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

const cstring = (s: string) => Buffer.from(`${s}\0`, 'utf8');

/** The StartupMessage (protocol 3.0) for `params` (user, database, and the client's run-time settings). */
export function startupMessage(params: Record<string, string>): Buffer {
  const parts = [Buffer.from([0, 3, 0, 0])];
  for (const [k, v] of Object.entries(params)) parts.push(cstring(k), cstring(v));
  parts.push(Buffer.from([0]));
  const body = Buffer.concat(parts);
  const len = Buffer.alloc(4);
  len.writeInt32BE(body.length + 4);
  return Buffer.concat([len, body]);
}

/** Parses a StartupMessage body (after the length and the protocol version) into its parameters. */
export function startupParams(body: Buffer): Record<string, string> {
  const out: Record<string, string> = {};
  const words = body.toString('utf8').split('\0');
  for (let i = 0; i + 1 < words.length && words[i] !== ''; i += 2) out[words[i]] = words[i + 1];
  return out;
}

/** An ErrorResponse with `severity`, SQLSTATE `code` and `text`, as PostgreSQL sends it. */
export function errorResponse(code: string, text: string, severity = 'FATAL'): Buffer {
  return message(
    'E',
    Buffer.concat([
      cstring(`S${severity}`),
      cstring(`V${severity}`),
      cstring(`C${code}`),
      cstring(`M${text}`),
      Buffer.from([0]),
    ]),
  );
}

/** Reads whole messages off a socket, one at a time, while the connection is being set up. */
class MessageReader {
  private buf: Buffer = Buffer.alloc(0);
  private waiting: ((m: Buffer) => void) | null = null;
  private failed: Error | null = null;
  private onFail: ((e: Error) => void) | null = null;

  constructor(private readonly socket: Socket) {
    socket.on('data', this.onData);
    const fail = (e?: Error) => {
      this.failed ??= e ?? new Error('the database closed the connection during start-up');
      this.onFail?.(this.failed);
    };
    socket.on('error', fail);
    socket.on('close', () => fail());
  }

  private onData = (chunk: Buffer) => {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    this.deliver();
  };

  private deliver() {
    if (!this.waiting || this.buf.length < 5) return;
    const len = 1 + this.buf.readInt32BE(1);
    if (this.buf.length < len) return;
    const m = this.buf.subarray(0, len);
    this.buf = this.buf.subarray(len);
    const w = this.waiting;
    this.waiting = null;
    w(m);
  }

  next(): Promise<Buffer> {
    if (this.failed) return Promise.reject(this.failed);
    return new Promise((ok, fail) => {
      this.waiting = ok;
      this.onFail = fail;
      this.deliver();
    });
  }

  /** Stops reading; bytes already received after the last message are returned. */
  detach(): Buffer {
    this.socket.off('data', this.onData);
    this.socket.removeAllListeners('error');
    this.socket.removeAllListeners('close');
    return this.buf;
  }
}

/** A server ErrorResponse during start-up (too many clients, unknown database, bad password, ...). */
export class UpstreamError extends Error {
  readonly code: string;

  constructor(readonly response: Buffer) {
    const fields = response.subarray(5).toString('utf8').split('\0');
    const field = (k: string) => fields.find((f) => f.startsWith(k))?.slice(1);
    super(field('M') ?? 'the database refused the connection');
    this.code = field('C') ?? 'XX000';
  }
}

/** SCRAM-SHA-256 (RFC 5802/7677), the way PostgreSQL's own client answers it, without channel binding. */
async function scram(reader: MessageReader, socket: Socket, password: string): Promise<void> {
  const nonce = randomBytes(18).toString('base64');
  const clientFirstBare = `n=,r=${nonce}`;
  const first = Buffer.from(`n,,${clientFirstBare}`);
  const len = Buffer.alloc(4);
  len.writeInt32BE(first.length);
  socket.write(message('p', Buffer.concat([cstring('SCRAM-SHA-256'), len, first])));
  const cont = await reader.next();
  if (cont[0] !== 0x52 || cont.readInt32BE(5) !== 11) throw new UpstreamError(cont);
  const serverFirst = cont.subarray(9).toString('utf8');
  const attrs = Object.fromEntries(serverFirst.split(',').map((kv) => [kv[0], kv.slice(2)]));
  const salted = pbkdf2Sync(password, Buffer.from(attrs.s, 'base64'), Number(attrs.i), 32, 'sha256');
  const clientKey = createHmac('sha256', salted).update('Client Key').digest();
  const storedKey = createHash('sha256').update(clientKey).digest();
  const finalBare = `c=biws,r=${attrs.r}`;
  const auth = `${clientFirstBare},${serverFirst},${finalBare}`;
  const signature = createHmac('sha256', storedKey).update(auth).digest();
  const proof = Buffer.from(clientKey.map((b, i) => b ^ signature[i])).toString('base64');
  socket.write(message('p', Buffer.from(`${finalBare},p=${proof}`)));
  const fin = await reader.next();
  if (fin[0] !== 0x52 || fin.readInt32BE(5) !== 12) throw new UpstreamError(fin);
}

export interface ServerConnection {
  socket: Socket;
  /** The ParameterStatus messages the server sent at start-up (the pooler replays them to its clients). */
  parameters: Buffer[];
  /** Bytes that arrived after the first ReadyForQuery (normally none). */
  rest: Buffer;
}

/** Opens and authenticates one server connection for `params`; rejects with UpstreamError on a refusal. */
export async function openServerConnection(
  up: Upstream,
  params: Record<string, string>,
  timeoutMs: number,
): Promise<ServerConnection> {
  const socket = up.host.startsWith('/')
    ? connect(`${up.host}/.s.PGSQL.${up.port}`)
    : connect({ host: up.host, port: up.port });
  socket.setNoDelay(true);
  const reader = new MessageReader(socket);
  const timer = setTimeout(() => socket.destroy(new Error('connect timeout')), timeoutMs);
  try {
    socket.write(startupMessage({ ...params, user: up.user, database: up.database }));
    const parameters: Buffer[] = [];
    for (;;) {
      const m = await reader.next();
      const type = String.fromCharCode(m[0]);
      if (type === 'E') throw new UpstreamError(Buffer.from(m));
      if (type === 'S') parameters.push(Buffer.from(m));
      if (type === 'Z') break;
      if (type !== 'R') continue;
      const code = m.readInt32BE(5);
      if (code === 3) socket.write(message('p', cstring(up.password)));
      else if (code === 5) {
        const inner = createHash('md5')
          .update(up.password + up.user)
          .digest('hex');
        const outer = createHash('md5')
          .update(Buffer.concat([Buffer.from(inner), m.subarray(9, 13)]))
          .digest('hex');
        socket.write(message('p', cstring(`md5${outer}`)));
      } else if (code === 10) await scram(reader, socket, up.password);
      else if (code !== 0) throw new Error(`unsupported authentication request ${code}`);
    }
    return { socket, parameters, rest: reader.detach() };
  } catch (e) {
    reader.detach();
    socket.destroy();
    throw e;
  } finally {
    clearTimeout(timer);
  }
}
