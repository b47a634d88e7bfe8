/**
 * The pieces of the PostgreSQL wire protocol (version 3.0) that the embedded database's wire server
 * checks and answers itself (docs/connections.md): the frontend message types it accepts, their size
 * limits, and the backend messages it builds.
 */
import type { Socket } from 'node:net';

/** PostgreSQL's limits (libpq.h): 1 GB for messages that carry data, 10,000 bytes for the others. */
const LARGE_MESSAGE_LIMIT = 0x3fffffff;
const SMALL_MESSAGE_LIMIT = 10_000;

/**
 * The frontend messages of an established session, with the largest length (type byte excluded) each may
 * have. PasswordMessage ('p') is accepted only during authentication, start-up packets only first.
 */
const FRONTEND_LIMITS = new Map<number, number>([
  [0x42, LARGE_MESSAGE_LIMIT], // B Bind
  [0x43, SMALL_MESSAGE_LIMIT], // C Close
  [0x64, LARGE_MESSAGE_LIMIT], // d CopyData
  [0x63, SMALL_MESSAGE_LIMIT], // c CopyDone
  [0x66, SMALL_MESSAGE_LIMIT], // f CopyFail
  [0x44, SMALL_MESSAGE_LIMIT], // D Describe
  [0x45, SMALL_MESSAGE_LIMIT], // E Execute
  [0x48, SMALL_MESSAGE_LIMIT], // H Flush
  [0x46, LARGE_MESSAGE_LIMIT], // F FunctionCall
  [0x50, LARGE_MESSAGE_LIMIT], // P Parse
  [0x51, LARGE_MESSAGE_LIMIT], // Q Query
  [0x53, SMALL_MESSAGE_LIMIT], // S Sync
  [0x58, SMALL_MESSAGE_LIMIT], // X Terminate
]);

/** PostgreSQL's PG_MAX_AUTH_TOKEN_LENGTH: the longest PasswordMessage it reads. */
export const PASSWORD_MESSAGE_LIMIT = 65_535;

export type MessageRead =
  | { kind: 'incomplete' }
  | { kind: 'invalid'; reason: string }
  /** `message` is the whole message, type byte and length included. */
  | { kind: 'message'; type: number; message: Buffer; rest: Buffer };

/**
 * Reads one typed message from the front of `buf`, if it is whole. `limits` maps each accepted type to
 * its largest length; an unknown type, a length below 4 or above the limit is `invalid` as soon as the
 * first 5 bytes arrive (waiting for the rest of an impossible message would never end).
 */
export function readMessage(buf: Buffer, limits: ReadonlyMap<number, number> = FRONTEND_LIMITS): MessageRead {
  if (buf.length < 5) return { kind: 'incomplete' };
  const type = buf[0];
  const length = buf.readInt32BE(1);
  const limit = limits.get(type);
  if (limit === undefined) return { kind: 'invalid', reason: `invalid frontend message type ${type}` };
  if (length < 4 || length > limit) return { kind: 'invalid', reason: `invalid message length ${length}` };
  if (buf.length < 1 + length) return { kind: 'incomplete' };
  return { kind: 'message', type, message: buf.subarray(0, 1 + length), rest: buf.subarray(1 + length) };
}

/** The one message a client may send while it authenticates. */
export const PASSWORD_LIMITS: ReadonlyMap<number, number> = new Map([[0x70, PASSWORD_MESSAGE_LIMIT]]);

/** A backend message: its type byte, then its length, then `body`. */
export function backendMessage(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(4 + body.length, 1);
  return Buffer.concat([head, body]);
}

/** An ErrorResponse with severity FATAL: the server ends the connection after it. */
export function fatalError(sqlstate: string, message: string): Buffer {
  const fields = ['SFATAL', 'VFATAL', `C${sqlstate}`, `M${message}`];
  return backendMessage('E', Buffer.from(`${fields.join('\0')}\0\0`));
}

/** AuthenticationCleartextPassword. */
export function cleartextPasswordRequest(): Buffer {
  const body = Buffer.alloc(4);
  body.writeInt32BE(3, 0);
  return backendMessage('R', body);
}

/** The start-up parameters (user, database, options, ...) of a start-up packet. */
export function startupParameters(packet: Buffer): Map<string, string> {
  const parts = packet.subarray(8).toString('utf8').split('\0');
  const params = new Map<string, string>();
  for (let i = 0; i + 1 < parts.length && parts[i] !== ''; i += 2) params.set(parts[i], parts[i + 1]);
  return params;
}

/** The password of a PasswordMessage (`message` whole, type byte included). */
export function passwordOf(message: Buffer): string {
  const body = message.subarray(5);
  const end = body.indexOf(0);
  return body.subarray(0, end < 0 ? body.length : end).toString('utf8');
}

/** Sends `last` (a FATAL ErrorResponse), then closes the connection, whether or not the client does. */
export function endWith(socket: Socket, last: Buffer): void {
  socket.end(last, () => socket.destroy());
}
