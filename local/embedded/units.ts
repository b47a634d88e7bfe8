/**
 * What the embedded database's wire server (local/embedded/wireServer.ts) keeps of each client and hands
 * to PGlite: a client's reading state, the unit of work (messages up to a Sync, Query or Flush), and the
 * fix-up of PGlite's answer to it.
 */
import type { Socket } from 'node:net';

export interface Client {
  id: number;
  socket: Socket;
  phase: 'startup' | 'password' | 'session' | 'ended';
  /** Its start-up ran in PGlite: it has session state that a restart of PGlite loses. */
  inSession: boolean;
  user: string;
  /** Bytes received and not yet read as messages. */
  buf: Buffer;
  /** Chunks received after `buf`, joined to it only once the message being received is whole. */
  chunks: Buffer[];
  received: number;
  /** The length `buf` needs before the next message (or its header) can be read. */
  need: number;
  /** The messages of the unit being gathered (up to its Sync, Query or Flush). */
  pending: Buffer[];
  pendingBytes: number;
  /** Its units in the queue; while it has one, its socket is paused (backpressure). */
  queued: number;
}

export interface Unit {
  client: Client;
  data: Uint8Array;
  /** Ends with Sync or a simple Query: the client's exchange is complete (unless in a transaction). */
  complete: boolean;
  /** ReadyForQuery messages the client expects for this unit (one per Sync/Query, one for start-up). */
  expectedReady: number;
}

export const STARTUP_PACKET = (() => {
  const params = Buffer.from('user\0postgres\0database\0postgres\0\0');
  const head = Buffer.alloc(8);
  head.writeInt32BE(8 + params.length, 0);
  head.writeInt32BE(196608, 4);
  return Buffer.concat([head, params]);
})();

/** Gathered messages are handed to PGlite at this size even without a Sync (their memory stays bounded). */
export const UNIT_BYTES = 8 * 1024 * 1024;

export const SYNC = 0x53;
export const QUERY = 0x51;
export const FLUSH = 0x48;
export const TERMINATE = 0x58;
export const SYNC_MESSAGE = Buffer.from([SYNC, 0, 0, 0, 4]);
/** CopyData, CopyDone, CopyFail. */
export const COPY_MESSAGES = new Set([0x64, 0x63, 0x66]);

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

export function countReadyRequests(messages: Buffer[]): number {
  return messages.filter((m) => m[0] === SYNC || m[0] === QUERY).length;
}

/** How many bytes `client.buf` must hold before `read` can take its next packet or message. */
export function bytesNeeded(client: Client): number {
  const { buf } = client;
  if (client.phase === 'startup') return buf.length < 8 ? 8 : buf.readInt32BE(0);
  return buf.length < 5 ? 5 : 1 + buf.readInt32BE(1);
}
