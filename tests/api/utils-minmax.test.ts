import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { writeCraftedTiff } from '../fixtures/craftedTiffs.ts';
import { writeTiledTiff } from '../fixtures/rasters.ts';
import { writeStatsTiff } from '../fixtures/statsTiff.ts';
import { adminToken, apiUrlLocal, call, userWithSession } from '../helpers.ts';

// POST /api/utils/getminmax (docs/utils.md): the file's statistics, else the pixels of an overview or the image.
const NODATA = -9999;
const dir = 'MinMax';

beforeAll(() => {
  const root = join(inject('missionDataDir'), dir);
  mkdirSync(root, { recursive: true });
  // Band 1 carries GDAL statistics that differ from its pixels (so the answer shows which was read);
  // band 2 none: computed, its nodata pixel and NaN left out.
  writeStatsTiff(join(root, 'stats.tif'), {
    bands: 2,
    images: [
      {
        width: 20,
        height: 10,
        value: (c, r, b) =>
          b === 0 ? c : c === 0 && r === 0 ? NODATA : c === 1 && r === 0 ? Number.NaN : r * 20 + c,
      },
    ],
    statistics: [{ min: -3.5, max: 1234.25 }, null],
    nodata: NODATA,
  });
  // 100 × 100 with two overviews: 60 × 60 (3,600 pixels, the smallest with at least 2,500) and 10 × 10.
  writeStatsTiff(join(root, 'overviews.tif'), {
    bands: 1,
    images: [
      { width: 100, height: 100, value: (c, r) => c + r },
      { width: 60, height: 60, value: (c, r) => 1000 + c + r },
      { width: 10, height: 10, value: () => 5 },
    ],
  });
  // Every pixel nodata: no extremes.
  writeStatsTiff(join(root, 'empty.tif'), {
    bands: 1,
    images: [{ width: 4, height: 4, value: () => NODATA }],
    nodata: NODATA,
  });
  // A tiled COG-like file with no overview: all of its 9 tiles are read.
  writeTiledTiff(join(root, 'tiled.tif'), {
    width: 40,
    height: 40,
    bands: 1,
    tile: 16,
    epsg: 4326,
    geographic: true,
    origin: [0, 10],
    pixel: [0.25, 0.25],
    value: (c, r) => (c === 39 && r === 39 ? 77.5 : c === 3 && r === 5 ? -12 : 1),
  });
  // One 16384 × 16384 Float32 tile: 1 GiB decoded, past the per-tile budget.
  writeCraftedTiff(join(root, 'huge.tif'), {
    width: 16384,
    height: 16384,
    tileWidth: 16384,
    tileHeight: 16384,
    blob: deflateSync(Buffer.alloc(1024), { level: 1 }),
    origin: [0, 10],
    pixel: [10 / 16384, 10 / 16384],
  });
  writeFileSync(join(root, 'not-a-tiff.tif'), 'hello');
});

const minmax = (body: unknown, base?: string) => call('POST', '/api/utils/getminmax', { body, base });

describe('getminmax', () => {
  it('reads the stored statistics when the file has them, else computes them without nodata and NaN', async () => {
    const res = await minmax({ path: `/Missions/${dir}/stats.tif`, bands: [[1, 2]] });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toEqual([
      { band: 1, min: -3.5, max: 1234.25, source: 'statistics' },
      { band: 2, min: 2, max: 199, source: 'pixels' },
    ]);
    // Bands in the order asked for, a band asked for twice answered twice.
    const again = await minmax({ path: `${dir}/stats.tif`, bands: [2, 1, 2] });
    expect(again.body.map((b: { band: number }) => b.band)).toEqual([2, 1, 2]);
  });

  it('computes from the smallest overview of at least 2,500 pixels, as GDAL approximates', async () => {
    const res = await minmax({ path: `${dir}/overviews.tif`, bands: 1 });
    expect(res.body).toEqual([{ band: 1, min: 1000, max: 1118, source: 'overview' }]);
  });

  it('reads every tile of a tiled file without overviews; a band of nodata only has null extremes', async () => {
    expect((await minmax({ path: `${dir}/tiled.tif`, bands: '[1]' })).body).toEqual([
      { band: 1, min: -12, max: 77.5, source: 'pixels' },
    ]);
    expect((await minmax({ path: `${dir}/empty.tif`, bands: [1] })).body).toEqual([
      { band: 1, min: null, max: null, source: 'pixels' },
    ]);
  });

  it("answers the map client's form post with JSON it reads as data[0].band, .min, .max", async () => {
    const res = await call('POST', '/api/utils/getminmax', {
      body: new URLSearchParams({
        type: 'minmax',
        path: `Missions/${dir}/tiled.tif`,
        bands: '[1]',
      }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body[0]).toMatchObject({ band: 1, min: -12, max: 77.5 });
  });

  it('refuses bad input with 400 naming the field, an unreadable file with 422, a missing one with 404', async () => {
    const cases: Array<[unknown, number, string]> = [
      [{ bands: [1] }, 400, 'path'],
      [{ path: '', bands: [1] }, 400, 'path'],
      [{ path: `/Missions/${dir}/../../etc/passwd`, bands: [1] }, 400, 'path'],
      [{ path: '/etc/passwd', bands: [1] }, 400, 'path'],
      [{ path: '/vsicurl/http://169.254.169.254/', bands: [1] }, 400, 'path'],
      [{ path: `${dir}/stats.tif` }, 400, 'bands'],
      [{ path: `${dir}/stats.tif`, bands: [3] }, 400, 'bands'],
      [{ path: `${dir}/stats.tif`, bands: '[[2,1]]' }, 400, 'bands'],
      [{ path: `${dir}/stats.tif`, bands: 'nope' }, 400, 'bands'],
      [{ path: `${dir}/not-a-tiff.tif`, bands: [1] }, 422, 'GeoTIFF'],
      [{ path: `${dir}/missing.tif`, bands: [1] }, 404, ''],
    ];
    for (const [body, status, word] of cases) {
      const res = await minmax(body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.status).toBe('failure');
      expect(res.body.message).toContain(word);
    }
  });

  it('keeps to the decoding budget: a tile past RASTER_MAX_TILE_BYTES is 422 before it is read', async () => {
    const res = await minmax({ path: `${dir}/huge.tif`, bands: [1] });
    expect(res.status).toBe(422);
    expect(res.body.message).toContain('RASTER_MAX_TILE_BYTES');
  });

  it('under AUTH=local: a login, and a user only for the missions listed for them', async () => {
    const body = { path: `${dir}/tiled.tif`, bands: [1] };
    expect((await minmax(body, apiUrlLocal())).status).toBe(401);
    const outsider = await userWithSession('user', ['Elsewhere'], apiUrlLocal());
    const refused = await call('POST', '/api/utils/getminmax', {
      body,
      cookie: outsider.cookie,
      base: apiUrlLocal(),
    });
    expect(refused.status).toBe(403);
    const member = await userWithSession('user', [dir], apiUrlLocal());
    const allowed = await call('POST', '/api/utils/getminmax', {
      body,
      cookie: member.cookie,
      base: apiUrlLocal(),
    });
    expect(allowed.status).toBe(200);
    const admin = await call('POST', '/api/utils/getminmax', {
      body,
      token: adminToken(),
      base: apiUrlLocal(),
    });
    expect(admin.body).toEqual(allowed.body);
  });
});
