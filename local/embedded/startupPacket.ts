import type { Socket } from 'node:net';
import { endWith, fatalError } from './protocol.ts';

/**
 * The first packet a PostgreSQL client sends, before any typed message: an SSL or GSS encryption
 * request, a cancel request, or the start-up message, as the embedded database's wire server reads it
 * (docs/connections.md).
 */
const SSL_REQUEST = 80877103;
const GSS_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
/** Protocol 3.0, the only version served (PostgreSQL's clients all speak it). */
const PROTOCOL_3_0 = 196608;
/** PostgreSQL's MAX_STARTUP_PACKET_LENGTH: far above any real start-up message. */
const MAX_STARTUP_BYTES = 10_000;

type StartupRead =
  | { kind: 'incomplete' }
  /** A length no client sends, or a protocol other than 3.0: the connection is ended with a FATAL. */
  | { kind: 'invalid'; error: Buffer }
  /** `packet` is the whole packet, length included; `rest` what followed it. */
  | { kind: 'encryption' | 'cancel' | 'startup'; packet: Buffer; rest: Buffer };

function readStartupPacket(buf: Buffer): StartupRead {
  if (buf.length < 8) return { kind: 'incomplete' };
  const len = buf.readInt32BE(0);
  if (len < 8 || len > MAX_STARTUP_BYTES)
    return { kind: 'invalid', error: fatalError('08P01', `invalid length of startup packet: ${len}`) };
  if (buf.length < len) return { kind: 'incomplete' };
  const code = buf.readInt32BE(4);
  const packet = buf.subarray(0, len);
  const rest = buf.subarray(len);
  if (code === SSL_REQUEST || code === GSS_REQUEST) return { kind: 'encryption', packet, rest };
  if (code === CANCEL_REQUEST) return { kind: 'cancel', packet, rest };
  if (code !== PROTOCOL_3_0) {
    const version = `${code >>> 16}.${code & 0xffff}`;
    const error = fatalError('0A000', `unsupported frontend protocol ${version}: server supports 3.0`);
    return { kind: 'invalid', error };
  }
  return { kind: 'startup', packet, rest };
}

/**
 * Reads `buf` up to the start-up message, answering what comes before it on `socket` the way a server
 * without TLS does: an encryption request gets 'N', a cancel request closes the connection, an impossible
 * length or a protocol other than 3.0 ends it with a FATAL ErrorResponse. Returns null once the socket is
 * closed; else the start-up message (null until it is complete) and the bytes not yet consumed.
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
      endWith(socket, read.error);
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
