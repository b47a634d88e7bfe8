import { getDecoder } from 'geotiff';
import { describe, expect, it } from 'vitest';
import { inflateLzw, LzwTooLarge } from '#lib/rasters/lzw.ts';
import { encodeLzw } from '../fixtures/lzw.ts';

/** The bounded LZW decoder of the raster budget (lib/rasters/lzw.ts) reads what geotiff.js reads. */
const geotiffLzw = async (encoded: Uint8Array, bytes: number) => {
  const decoder = await getDecoder(5, {
    tileWidth: bytes / 4,
    tileHeight: 1,
    predictor: 1,
    bitsPerSample: [32],
    planarConfiguration: 1,
  });
  return new Uint8Array(await decoder.decode(encoded.slice().buffer));
};

function sample(kind: 'smooth' | 'noise', bytes: number): Uint8Array {
  if (kind === 'noise') {
    let s = 12345;
    return Uint8Array.from({ length: bytes }, () => {
      s = (s * 1103515245 + 12345) >>> 0;
      return s >>> 24;
    });
  }
  const f = Float32Array.from({ length: bytes / 4 }, (_, i) => Math.round(Math.sin(i / 500) * 100) / 4);
  return new Uint8Array(f.buffer);
}

describe('inflateLzw', () => {
  for (const kind of ['smooth', 'noise'] as const) {
    it(`decodes ${kind} data as geotiff.js does, across table clears`, async () => {
      const data = sample(kind, 64 * 1024);
      const encoded = encodeLzw(data);
      if (kind === 'smooth') expect(encoded.length).toBeLessThan(data.length / 2);
      expect(await geotiffLzw(encoded, data.length)).toEqual(data);
      expect(inflateLzw(encoded, data.length)).toEqual(data);
    });
  }

  it('stops at its bound: a stream longer than the tile throws LzwTooLarge', () => {
    const data = new Uint8Array(8 * 1024 * 1024);
    const encoded = encodeLzw(data);
    expect(encoded.length).toBeLessThan(64 * 1024);
    expect(() => inflateLzw(encoded, 256 * 1024)).toThrow(LzwTooLarge);
    expect(inflateLzw(encoded, data.length)).toHaveLength(data.length);
  });
});
