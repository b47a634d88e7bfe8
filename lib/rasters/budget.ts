import { inflateSync } from 'node:zlib';
import { BaseDecoder, type GeoTIFFImage, getDecoder } from 'geotiff';
import { HttpError } from '#lib/errors.ts';
import { setting } from '#lib/settings.ts';
import { inflateLzw, LzwTooLarge } from './lzw.ts';

/**
 * The decoding budget of one raster request (docs/utils.md, "Decoding budget"). A GeoTIFF's header says
 * how large its tiles are and where they lie, and a crafted file can lie cheaply: one tile of
 * 16384 × 16384 floats (1 GiB decoded) in a 1 MB file, 10,000 tiles pointing at one small blob, a deflate
 * stream that inflates far past its tile, a tile index past the offset tables. So before any tile is read,
 * the request's tiles are counted and their declared decoded sizes added up against these limits, each
 * tile's entry in the offset tables is checked, and deflate and LZW tiles are decoded with a bound on
 * their output. Every refusal is a 422 naming the limit.
 */
export interface DecodeLimits {
  /** Decoded bytes of one tile or strip (`RASTER_MAX_TILE_BYTES`, 64 MiB). */
  tileBytes: number;
  /** Tiles or strips decoded by one request (`RASTER_MAX_TILES`, 1024). */
  tiles: number;
  /** Decoded bytes of one request, tiles and the values copied out of them (`RASTER_MAX_DECODED_BYTES`, 256 MiB). */
  totalBytes: number;
}

const MiB = 1024 * 1024;

export function decodeLimits(): DecodeLimits {
  return {
    tileBytes: setting('RASTER_MAX_TILE_BYTES'),
    tiles: setting('RASTER_MAX_TILES'),
    totalBytes: setting('RASTER_MAX_DECODED_BYTES'),
  };
}

const size = (bytes: number) =>
  bytes >= MiB ? `${(bytes / MiB).toFixed(bytes % MiB ? 1 : 0)} MiB` : `${bytes} bytes`;

const unprocessable = (message: string) => new HttpError(422, message);

async function bitsPerSample(image: GeoTIFFImage): Promise<number[]> {
  const bits = await image.fileDirectory.loadValue('BitsPerSample');
  const list =
    bits === undefined ? [1] : typeof bits === 'number' ? [bits] : Array.from(bits as ArrayLike<number>);
  const n = image.getSamplesPerPixel();
  return Array.from({ length: n }, (_, i) => Number(list[i] ?? list[0]));
}

const bytesOf = (bits: number) => Math.ceil(bits / 8);

/**
 * Refuses (422), before anything is read, a request that would decode `blocks` tiles (or strips) of
 * `image` for `samples`: a tile larger than the per-tile limit, more tiles than allowed, or more bytes in
 * all. Chunky rasters decode each tile once for all samples; planar ones one tile per sample.
 */
export async function checkDecodePlan(
  image: GeoTIFFImage,
  key: string,
  blocks: number,
  samples: number[],
  limits: DecodeLimits,
): Promise<void> {
  const [w, h] = [image.getTileWidth(), image.getTileHeight()];
  if (!Number.isSafeInteger(w) || !Number.isSafeInteger(h) || w < 1 || h < 1) {
    throw unprocessable(`'${key}' declares tiles of ${w} × ${h} pixels: the file is damaged.`);
  }
  const pixels = w * h;
  const bits = await bitsPerSample(image);
  const perDecode =
    image.planarConfiguration === 2
      ? samples.map((s) => pixels * bytesOf(bits[s]))
      : [pixels * bytesOf(bits.reduce((a, b) => a + b, 0))];
  const largest = Math.max(...perDecode);
  if (!Number.isSafeInteger(largest) || largest > limits.tileBytes) {
    throw unprocessable(
      `'${key}' has tiles of ${w} × ${h} pixels that decode to ` +
        `${size(largest)} each, more than the ${size(limits.tileBytes)} allowed (RASTER_MAX_TILE_BYTES): ` +
        'convert it to a Cloud-Optimized GeoTIFF with 256 or 512 pixel tiles (docs/utils.md).',
    );
  }
  const decodes = blocks * perDecode.length;
  if (decodes > limits.tiles) {
    throw unprocessable(
      `This request would decode ${decodes} tiles of '${key}', more than the ${limits.tiles} allowed per ` +
        'request (RASTER_MAX_TILES): ask for fewer points or bands (docs/utils.md).',
    );
  }
  const copied = pixels * samples.reduce((a, s) => a + bytesOf(bits[s]), 0);
  const total = blocks * (perDecode.reduce((a, b) => a + b, 0) + copied);
  if (total > limits.totalBytes) {
    throw unprocessable(
      `This request would decode ${size(total)} of '${key}', more than the ${size(limits.totalBytes)} ` +
        'allowed per request (RASTER_MAX_DECODED_BYTES): ask for fewer points or bands (docs/utils.md).',
    );
  }
}

/**
 * Refuses (422) a tile (or strip) whose index has no entry in the file's offset or byte-count table: the
 * header declares more tiles than it locates (geotiff.js would read at offset NaN). The indices are
 * geotiff.js's own: row-major, and for planar rasters one plane of tiles per sample.
 */
export async function checkBlocksLocated(
  image: GeoTIFFImage,
  key: string,
  blocks: Array<[number, number]>,
  samples: number[],
): Promise<void> {
  const across = Math.ceil(image.getWidth() / image.getTileWidth());
  const down = Math.ceil(image.getHeight() / image.getTileHeight());
  const [offsets, counts] = image.isTiled
    ? ['TileOffsets', 'TileByteCounts']
    : ['StripOffsets', 'StripByteCounts'];
  const planes = image.planarConfiguration === 2 ? samples : [0];
  const entry = async (tag: string, index: number) => {
    try {
      return Number(await image.fileDirectory.loadValueIndexed(tag, index));
    } catch {
      return Number.NaN; // geotiff.js throws a RangeError past the end of a table it reads lazily
    }
  };
  for (const [x, y] of blocks) {
    for (const plane of planes) {
      const index = plane * across * down + y * across + x;
      const [offset, count] = [await entry(offsets, index), await entry(counts, index)];
      if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(count) || offset < 0 || count < 0) {
        throw unprocessable(
          `'${key}' declares tile ${index} (column ${x}, row ${y}) but its ${offsets}/${counts} tables ` +
            'hold no valid entry for it: the file is damaged.',
        );
      }
    }
  }
}

type DecoderParameters = ConstructorParameters<typeof BaseDecoder>[0];

/** Decoded bytes one tile of these parameters may hold: all samples (chunky) or the widest (planar). */
function expectedBytes(p: DecoderParameters): number {
  const bits = typeof p.bitsPerSample === 'number' ? [p.bitsPerSample] : Array.from(p.bitsPerSample);
  const perPixel =
    p.planarConfiguration === 2
      ? Math.max(...bits.map(bytesOf))
      : bytesOf(bits.reduce((a, b) => a + Number(b), 0));
  return p.tileWidth * p.tileHeight * perPixel;
}

/** Deflate (TIFF compression 8 and 32946) through node's zlib, with the output bounded by the tile's size. */
class BoundedDeflate extends BaseDecoder {
  decodeBlock(buffer: ArrayBuffer): ArrayBuffer {
    const out = inflateSync(new Uint8Array(buffer), {
      maxOutputLength: Math.max(1, expectedBytes(this.parameters)),
    });
    return out.buffer.slice(out.byteOffset, out.byteOffset + out.byteLength) as ArrayBuffer;
  }
}

/** LZW (TIFF compression 5) with the output bounded by the tile's size (lzw.ts). */
class BoundedLzw extends BaseDecoder {
  decodeBlock(buffer: ArrayBuffer): ArrayBuffer {
    return inflateLzw(new Uint8Array(buffer), Math.max(1, expectedBytes(this.parameters)))
      .buffer as ArrayBuffer;
  }
}

const BOUNDED: Record<number, typeof BoundedDeflate | typeof BoundedLzw> = {
  5: BoundedLzw,
  8: BoundedDeflate,
  32946: BoundedDeflate,
};

/**
 * A geotiff.js decoder "pool" (`readRasters({ pool })`) that keeps to the budget while decoding: deflate
 * and LZW tiles decode to at most their declared size (a longer stream is a crafted or damaged file: 422);
 * other compressions use geotiff.js's decoders and their output is checked after (so a bomb of those kinds
 * is stopped at its first tile, not before it). The decoded bytes of the request are added up against
 * `limits.totalBytes`.
 */
export function budgetedDecoders(key: string, limits: DecodeLimits) {
  let decoded = 0;
  return {
    bindParameters(compression: number, parameters: DecoderParameters) {
      const expected = expectedBytes(parameters);
      return {
        async decode(buffer: ArrayBuffer): Promise<ArrayBufferLike> {
          let out: ArrayBufferLike;
          try {
            const Bounded = BOUNDED[compression];
            out = Bounded
              ? await new Bounded(parameters).decode(buffer)
              : await (await getDecoder(compression, parameters)).decode(buffer);
          } catch (e) {
            if (e instanceof HttpError) throw e;
            const tooLong =
              e instanceof LzwTooLarge || (e as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE';
            throw unprocessable(
              tooLong
                ? `A tile of '${key}' inflates to more than its ${size(expected)}: the file is damaged or crafted.`
                : `A tile of '${key}' cannot be decoded (${(e as Error).message}).`,
            );
          }
          // Other decoders may pad (JPEG, WebP): only an output far past the tile's size is refused.
          if (out.byteLength > (BOUNDED[compression] ? expected : 2 * expected + 65536)) {
            throw unprocessable(
              `A tile of '${key}' decodes to ${size(out.byteLength)}, more than its ${size(expected)}: ` +
                'the file is damaged or crafted.',
            );
          }
          decoded += out.byteLength;
          if (decoded > limits.totalBytes) {
            throw unprocessable(
              `This request decoded more than the ${size(limits.totalBytes)} allowed per request ` +
                `from '${key}' (RASTER_MAX_DECODED_BYTES).`,
            );
          }
          return out;
        },
      };
    },
  };
}
