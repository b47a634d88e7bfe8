import { HttpError } from '#lib/errors.ts';
import { setting } from '#lib/settings.ts';
import type { MissionStorage } from '#lib/storage/storage.ts';

const BLOCK = 16 * 1024;

/** The largest single read (`RASTER_MAX_READ_BYTES`, default 32 MiB): a strip or tile above it is refused. */
export function maxReadBytes(): number {
  return setting('RASTER_MAX_READ_BYTES');
}

interface Slice {
  offset: number;
  length: number;
}

/**
 * A geotiff.js source over the mission storage: every read is a byte range of the file, so a tiled
 * (Cloud-Optimized) GeoTIFF reads its header, the tile offsets it needs and the tiles the request
 * touches, never the whole file. Small reads (headers, offset tables) go through 16 KiB aligned blocks
 * kept for the life of this source; tile reads go straight through. `bytesRead` counts what was read.
 */
export class StorageSource {
  bytesRead = 0;
  reads = 0;
  private blocks = new Map<number, Promise<Uint8Array>>();

  constructor(
    private readonly storage: MissionStorage,
    private readonly key: string,
    private readonly limit = maxReadBytes(),
  ) {}

  get fileSize(): number | null {
    return null;
  }

  async close(): Promise<void> {
    this.blocks.clear();
  }

  private read(offset: number, length: number): Promise<Uint8Array> {
    this.reads++;
    return this.storage.readRange(this.key, offset, length).then((b) => {
      this.bytesRead += b.byteLength;
      return b;
    });
  }

  private block(i: number): Promise<Uint8Array> {
    let b = this.blocks.get(i);
    if (!b) {
      b = this.read(i * BLOCK, BLOCK);
      this.blocks.set(i, b);
    }
    return b;
  }

  async fetchSlice(slice: Slice): Promise<{ offset: number; length: number; data: ArrayBuffer }> {
    const { offset, length } = slice;
    if (length > this.limit) {
      throw new HttpError(
        422,
        `The raster stores a block of ${length} bytes, more than the ${this.limit} bytes read at once: ` +
          'convert it to a tiled Cloud-Optimized GeoTIFF (docs/utils.md).',
      );
    }
    let bytes: Uint8Array;
    if (length <= BLOCK) {
      const first = Math.floor(offset / BLOCK);
      const last = Math.floor((offset + length - 1) / BLOCK);
      const parts = await Promise.all(
        Array.from({ length: last - first + 1 }, (_, k) => this.block(first + k)),
      );
      const joined = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
      let at = 0;
      for (const p of parts) {
        joined.set(p, at);
        at += p.byteLength;
      }
      const start = offset - first * BLOCK;
      bytes = joined.subarray(
        Math.min(start, joined.byteLength),
        Math.min(start + length, joined.byteLength),
      );
    } else {
      bytes = await this.read(offset, length);
    }
    const data = bytes.slice().buffer as ArrayBuffer;
    return { offset, length: data.byteLength, data };
  }

  async fetch(slices: Slice[]): Promise<ArrayBuffer[]> {
    return Promise.all(slices.map(async (s) => (await this.fetchSlice(s)).data));
  }
}
