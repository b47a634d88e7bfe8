import type { Socket } from 'node:net';

/**
 * The first packet a PostgreSQL client sends, before any typed message: an SSL or GSS encryption
 * request, a cancel request, or the start-up message. Read by the embedded database's wire server and by
 * the local connection pooler (docs/connections.md).
 */
const SSL_REQUEST = 80877103;
const GSS_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
/** Far above any real start-up message (user, database and a few options). */
const MAX_STARTUP_BYTES = 10_000;

type StartupRead =
  | { kind: 'incomplete' }
  /** A length no client sends: the connection is to be dropped (looping on it would never end). */
  | { kind: 'invalid' }
  /** `packet` is the whole packet, length included; `rest` what followed it. */
  | { kind: 'encryption' | 'cancel' | 'startup'; packet: Buffer; rest: Buffer };

function readStartupPacket(buf: Buffer): StartupRead {
  if (buf.length < 8) return { kind: 'incomplete' };
  const len = buf.readInt32BE(0);
  if (len < 8 || len > MAX_STARTUP_BYTES) return { kind: 'invalid' };
  if (buf.length < len) return { kind: 'incomplete' };
  const code = buf.readInt32BE(4);
  const packet = buf.subarray(0, len);
  const rest = buf.subarray(len);
  if (code === SSL_REQUEST || code === GSS_REQUEST) return { kind: 'encryption', packet, rest };
  if (code === CANCEL_REQUEST) return { kind: 'cancel', packet, rest };
  return { kind: 'startup', packet, rest };
}

/**
 * Reads `buf` up to the start-up message, answering what comes before it on `socket` the way a server
 * without TLS does: an encryption request gets 'N', a cancel request closes the connection, an impossible
 * length drops it. Returns null once the socket is closed; else the start-up message (null until it is
 * complete) and the bytes not yet consumed.
 */
export function takeStartupPacket(
  socket: Socket,
  buf: Buffer,
): { packet: Buffer | null; rest: Buffer } | null {
  let rest = buf;
  for (;;) {
    const read = readStartupPacket(rest);
    if (read.kind === 'incomplete') return { packet: null, rest };
    if (read.kind === 'invalid') {
      socket.destroy();
      return null;
    }
    if (read.kind === 'cancel') {
      socket.end();
      return null;
    }
    rest = read.rest;
    if (read.kind === 'startup') return { packet: read.packet, rest };
    socket.write('N');
  }
}
