import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { writeCraftedTiff } from '../fixtures/craftedTiffs.ts';
import { encodeLzw } from '../fixtures/lzw.ts';
import { call } from '../helpers.ts';

/**
 * The attack: any viewer names a raster path, and a crafted GeoTIFF made getbands/getprofile exhaust the
 * function: one 16384 × 16384 float tile (1 GiB decoded) in a small file ran 30 s to the timeout while RSS
 * climbed 1.4 GB; 10,000 tiles pointing at one blob timed getprofile out; a tile index past the offset
 * tables answered 500. Now every read keeps to a decoding budget (docs/utils.md, lib/rasters/budget.ts):
 * each case answers 422, quickly, naming the limit. The files are made here, small.
 */
const MiB = 1024 * 1024;
const zeros = (bytes: number) => deflateSync(Buffer.alloc(bytes), { level: 1 });
const sizes: Record<string, number> = {};

beforeAll(() => {
  const dir = join(inject('missionDataDir'), 'Sec');
  mkdirSync(dir, { recursive: true });
  const file = (name: string, o: Parameters<typeof writeCraftedTiff>[1]) => {
    sizes[name] = writeCraftedTiff(join(dir, name), o);
  };
  // one tile of 16384 × 16384 Float32: 1 GiB decoded (the blob does not matter: nothing is read)
  file('huge.tif', {
    width: 16384,
    height: 16384,
    tileWidth: 16384,
    tileHeight: 16384,
    blob: zeros(MiB),
    origin: [0, 10],
    pixel: [10 / 16384, 10 / 16384],
  });
  // a 256 × 256 Float32 tile (256 KiB) whose deflate stream inflates to 64 MiB
  file('bomb.tif', {
    width: 256,
    height: 256,
    tileWidth: 256,
    tileHeight: 256,
    blob: zeros(64 * MiB),
    origin: [0, 1],
    pixel: [1 / 256, 1 / 256],
  });
  // the same with LZW (GDAL's default COG compression): 16 MiB from one 256 KiB tile
  file('lzwbomb.tif', {
    width: 256,
    height: 256,
    tileWidth: 256,
    tileHeight: 256,
    compression: 5,
    blob: Buffer.from(encodeLzw(new Uint8Array(16 * MiB))),
    origin: [0, 1],
    pixel: [1 / 256, 1 / 256],
  });
  // a sound LZW tile (16 × 16, value = row × 16 + column): read through the bounded decoder
  file('lzwgood.tif', {
    width: 16,
    height: 16,
    tileWidth: 16,
    tileHeight: 16,
    compression: 5,
    blob: Buffer.from(encodeLzw(new Uint8Array(Float32Array.from({ length: 256 }, (_, i) => i).buffer))),
    origin: [0, 1],
    pixel: [1 / 16, 1 / 16],
  });
  // 10,000 tiles of 64 × 64 in one row, all pointing at one blob; the row spans 85°W–85°E at the equator
  file('manytiles.tif', {
    width: 640_000,
    height: 64,
    tileWidth: 64,
    tileHeight: 64,
    blob: zeros(64 * 64 * 4),
    origin: [-85, 0.032],
    pixel: [170 / 640_000, 0.001],
  });
  // 200 tiles of 512 × 512 (1 MiB each decoded) in one row: few tiles, many bytes
  file('bigtiles.tif', {
    width: 200 * 512,
    height: 512,
    tileWidth: 512,
    tileHeight: 512,
    blob: zeros(512 * 512 * 4),
    origin: [-85, 0.256],
    pixel: [170 / (200 * 512), 0.001],
  });
  // 16 tiles declared, 4 located (the table lies in the header's first read: read eagerly)
  file('shorttable.tif', {
    width: 1024,
    height: 1024,
    tileWidth: 256,
    tileHeight: 256,
    tableLength: 4,
    blob: zeros(256 * 256 * 4),
    origin: [0, 1],
    pixel: [1 / 1024, 1 / 1024],
  });
  // 8,192 tiles declared, 4,096 located (a table past the header's first read: geotiff.js reads it lazily)
  file('shortlazy.tif', {
    width: 8192 * 16,
    height: 16,
    tileWidth: 16,
    tileHeight: 16,
    tableLength: 4096,
    blob: zeros(16 * 16 * 4),
    origin: [0, 1],
    pixel: [1 / 8192, 1 / 8192],
  });
});

const post = (path: string, body: unknown) => call('POST', path, { body });
const bands = (file: string, x: number, y: number) =>
  post('/api/utils/getbands', { path: `Missions/Sec/${file}`, x, y, xyorll: 'xy', bands: [1] });
const profile = (file: string, steps: number) =>
  post('/api/utils/getprofile', {
    path: `Missions/Sec/${file}`,
    lat1: 0,
    lon1: -84.99,
    lat2: 0,
    lon2: 84.99,
    steps,
  });

async function refusedQuickly(run: () => ReturnType<typeof post>, message: RegExp) {
  const started = Date.now();
  const r = await run();
  expect(r.status, r.text).toBe(422);
  expect(r.body).toEqual({ status: 'failure', error: true, message: expect.stringMatching(message) });
  expect(Date.now() - started).toBeLessThan(15_000);
  return r;
}

describe('raster reads keep to a decoding budget', () => {
  it('refuses a tile that decodes past 64 MiB, before reading it', async () => {
    expect(sizes['huge.tif']).toBeLessThan(64 * 1024);
    const r = await refusedQuickly(() => bands('huge.tif', 10, 10), /RASTER_MAX_TILE_BYTES/);
    expect(r.body.message).toMatch(/16384 × 16384 pixels that decode to 1024 MiB/);
    const p = await post('/api/utils/getprofile', {
      path: 'Missions/Sec/huge.tif',
      lat1: 5,
      lon1: 1,
      lat2: 6,
      lon2: 2,
      steps: 10,
    });
    expect(p.status, p.text).toBe(422);
  });

  it('refuses a deflate or LZW tile that inflates past its declared size', async () => {
    await refusedQuickly(() => bands('bomb.tif', 3, 3), /inflates to more than its 262144 bytes/);
    await refusedQuickly(() => bands('lzwbomb.tif', 3, 3), /inflates to more than its 262144 bytes/);
    const sound = await bands('lzwgood.tif', 3, 2);
    expect(sound.status, sound.text).toBe(200);
    expect(sound.text).toMatch(/\b35\b/);
  });

  it('refuses a profile that would decode 10,000 tiles pointing at one blob', async () => {
    expect(sizes['manytiles.tif']).toBeLessThan(160 * 1024);
    await refusedQuickly(() => profile('manytiles.tif', 10_000), /would decode \d+ tiles.*RASTER_MAX_TILES/);
    // a short profile over the same file stays within the budget
    const few = await profile('manytiles.tif', 50);
    expect(few.status, few.text).toBe(200);
  });

  it('refuses a profile whose tiles add up past 256 MiB decoded', async () => {
    await refusedQuickly(
      () => profile('bigtiles.tif', 10_000),
      /would decode \d+ MiB.*RASTER_MAX_DECODED_BYTES/,
    );
  });

  it('answers 422, not 500, for a tile past the offset tables', async () => {
    await refusedQuickly(() => bands('shorttable.tif', 900, 900), /tile 15 .*TileOffsets\/TileByteCounts/);
    const inside = await bands('shorttable.tif', 10, 10);
    expect(inside.status, inside.text).toBe(200);
    await refusedQuickly(() => bands('shortlazy.tif', 8000 * 16, 3), /tile 8000 .*TileOffsets/);
    expect((await bands('shortlazy.tif', 100 * 16, 3)).status).toBe(200);
  });
});
