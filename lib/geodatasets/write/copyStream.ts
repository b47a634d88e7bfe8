import type { Writable } from 'node:stream';
import type { TxSql } from '#lib/db/index.ts';
import { safeTable } from '../catalog.ts';

/** The columns a COPY fills, in the order of `copyLine`'s fields (insertFeatures.ts). */
export const COPY_COLUMNS = '(geom, properties, start_time, end_time, group_id, feature_id)';

/** Characters of COPY text gathered before one write to the socket. */
const CHUNK_CHARS = 1 << 16;

/**
 * Chunks handed to the socket and not yet taken by it before `write` waits for the oldest: about 2 MB,
 * so the parser and the database each keep working while the other catches up (waiting for the socket
 * to drain whole would idle one of them at every chunk).
 */
const CHUNKS_IN_FLIGHT = 32;

/**
 * One COPY FROM STDIN kept open while a write's rows arrive (docs/uploads.md, "Ingest at scale"): each
 * line goes out as soon as a chunk of them is gathered, so the database stores rows while the next
 * ones are parsed, as COPY-then-index does, instead of waiting for whole batches. `write` resolves at
 * once unless `CHUNKS_IN_FLIGHT` chunks wait for the socket (then when the oldest is taken); `end`
 * resolves when the database has stored every line, and both reject with the database's error when it
 * refuses one (its `where` names the line, counted from this stream's first).
 */
export class CopyStream {
  /** Lines written so far. */
  rows = 0;
  private chunk: string[] = [];
  private chars = 0;
  private failure: Error | null = null;
  private readonly inFlight: Promise<void>[] = [];

  private constructor(private readonly w: Writable) {
    // Attached at once: a refusal emits 'error', which unheard would end the process.
    w.on('error', (e) => {
      this.failure ??= e;
    });
  }

  /** Opens a COPY of `table` (an identifier from our catalog) in the transaction `tx`. */
  static async open(tx: TxSql, table: string): Promise<CopyStream> {
    const w = await tx.unsafe(`copy ${safeTable(table)} ${COPY_COLUMNS} from stdin`).writable();
    return new CopyStream(w);
  }

  /** Adds one complete line of COPY text; a promise only when the caller must wait for the socket. */
  write(line: string): Promise<void> | undefined {
    this.rows++;
    this.chunk.push(line);
    this.chars += line.length;
    return this.chars >= CHUNK_CHARS ? this.send() : undefined;
  }

  /** Sends every line and waits until the database has stored them. */
  async end(): Promise<void> {
    await this.send();
    await Promise.all(this.inFlight.splice(0));
    await new Promise<void>((ok, fail) => {
      if (this.failure) return fail(this.failure);
      this.w.end((e?: Error | null) => (e ? fail(this.failure ?? e) : ok()));
    });
  }

  /** Hands the gathered lines to the socket; the oldest chunk's promise when too many are in flight. */
  private send(): Promise<void> | undefined {
    if (this.failure) return Promise.reject(this.failure);
    if (this.chunk.length) {
      const text = this.chunk.join('');
      this.chunk = [];
      this.chars = 0;
      const taken = new Promise<void>((ok, fail) =>
        this.w.write(text, (e) => {
          if (!e) return ok();
          // The database's refusal (its 'error') names the line; the write's own error does not.
          setImmediate(() => fail(this.failure ?? e));
        }),
      );
      taken.catch(() => {}); // observed when awaited
      this.inFlight.push(taken);
    }
    return this.inFlight.length > CHUNKS_IN_FLIGHT ? this.inFlight.shift() : undefined;
  }
}
