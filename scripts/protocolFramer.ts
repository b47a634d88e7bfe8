/**
 * Finds message boundaries in a PostgreSQL v3 protocol byte stream without buffering whole messages, for
 * the connection pooler (scripts/connectionPooler.ts): bodies pass through as they arrive; only a header
 * split across two chunks is held back until it is complete, so every header is seen whole.
 */
const EMPTY = Buffer.alloc(0);

export class ProtocolFramer {
  private head: Buffer = EMPTY;
  private need = 0;
  private inReady = false;
  /** ReadyForQuery messages seen so far, and the transaction status of the last ('I', 'T' or 'E'). */
  readies = 0;
  status = '';

  /**
   * Scans `chunk` and returns the bytes that may be forwarded now. `onHeader` sees each message's type
   * and its offset in the returned bytes. Throws on a length no message can have.
   */
  scan(chunk: Buffer, onHeader?: (type: number, offset: number) => void): Buffer {
    const data = this.head.length ? Buffer.concat([this.head, chunk]) : chunk;
    this.head = EMPTY;
    let o = 0;
    while (o < data.length) {
      if (this.need > 0) {
        if (this.inReady) {
          this.status = String.fromCharCode(data[o]);
          this.readies++;
          this.inReady = false;
        }
        const take = Math.min(this.need, data.length - o);
        o += take;
        this.need -= take;
        continue;
      }
      if (data.length - o < 5) {
        this.head = Buffer.from(data.subarray(o));
        return data.subarray(0, o);
      }
      const type = data[o];
      const len = data.readInt32BE(o + 1);
      if (len < 4) throw new Error(`invalid protocol message length ${len}`);
      this.need = len - 4;
      this.inReady = type === 0x5a && this.need > 0;
      onHeader?.(type, o);
      o += 5;
    }
    return data;
  }

  /** No message is half-read. */
  atBoundary(): boolean {
    return this.need === 0 && this.head.length === 0;
  }
}

/**
 * Cuts a client's byte stream into whole messages (the pooler rewrites some of them). A message that
 * spans many chunks is joined once, when its last byte has arrived.
 */
export class MessageAssembler {
  private chunks: Buffer[] = [];
  private size = 0;
  /** Bytes of the first message, type byte included (0: its header has not arrived yet). */
  private need = 0;

  /** The whole messages completed by `chunk`, in order. Throws on a length no message can have. */
  push(chunk: Buffer): Buffer[] {
    this.chunks.push(chunk);
    this.size += chunk.length;
    const out: Buffer[] = [];
    for (;;) {
      if (this.need === 0) {
        if (this.size < 5) return out;
        if (this.chunks[0].length < 5) this.chunks = [Buffer.concat(this.chunks, this.size)];
        const len = this.chunks[0].readInt32BE(1);
        if (len < 4) throw new Error(`invalid protocol message length ${len}`);
        this.need = len + 1;
      }
      if (this.size < this.need) return out;
      const data = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks, this.size);
      out.push(data.subarray(0, this.need));
      const rest = data.subarray(this.need);
      this.chunks = rest.length > 0 ? [rest] : [];
      this.size = rest.length;
      this.need = 0;
    }
  }
}
