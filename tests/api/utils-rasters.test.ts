import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import proj4 from 'proj4';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { writeTiledTiff } from '../fixtures/rasters.ts';
import { apiUrlLocal, call } from '../helpers.ts';

// Rasters with known values, written into the mission data root the services read (MISSION_DATA_DIR).
const NODATA = -9999;
/** geo3.tif: EPSG:4326, 40×20 px of 0.5°, top-left (10°E, 50°N), 3 bands, 16 px deflate tiles. */
const geo = (c: number, r: number, b: number) => (c === 3 && r === 2 ? NODATA : (b + 1) * 1000 + r * 40 + c);
/** utm.tif: EPSG:32633 (UTM 33N), 60×60 px of 100 m, top-left (400000 E, 5600000 N), 1 band. */
const utm = (c: number, r: number) => r * 60 + c;
const UTM33 = '+proj=utm +zone=33 +datum=WGS84 +units=m +no_defs';

beforeAll(() => {
  const root = join(inject('missionDataDir'), 'T');
  mkdirSync(join(root, 'Layers', 'Tiles'), { recursive: true });
  writeTiledTiff(join(root, 'geo3.tif'), {
    width: 40,
    height: 20,
    bands: 3,
    tile: 16,
    epsg: 4326,
    geographic: true,
    origin: [10, 50],
    pixel: [0.5, 0.5],
    nodata: NODATA,
    value: geo,
  });
  writeTiledTiff(join(root, 'utm.tif'), {
    width: 60,
    height: 60,
    bands: 1,
    tile: 32,
    deflate: false,
    epsg: 32633,
    geographic: false,
    origin: [400000, 5600000],
    pixel: [100, 100],
    value: utm,
  });
  writeFileSync(join(root, 'not-a-tiff.tif'), 'hello');
  for (const d of [
    '2022-08-09T17_26_52Z-a',
    '2022-08-10T00_00_00Z-b',
    '2021-01-01T00_00_00Z-c',
    '2022-08-09T19_26_53+02_00-d',
    'notatime',
  ]) {
    mkdirSync(join(root, 'Layers', 'Tiles', d), { recursive: true });
  }
  writeFileSync(join(root, 'Layers', 'Tiles', 'readme.txt'), 'x');
});

/** Great-circle interpolation by spherical linear interpolation of unit vectors (independent of turf). */
function slerp(lon1: number, lat1: number, lon2: number, lat2: number, f: number): [number, number] {
  const rad = Math.PI / 180;
  const v = (lon: number, lat: number) => [
    Math.cos(lat * rad) * Math.cos(lon * rad),
    Math.cos(lat * rad) * Math.sin(lon * rad),
    Math.sin(lat * rad),
  ];
  const a = v(lon1, lat1);
  const b = v(lon2, lat2);
  const cross = [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
  const w = Math.atan2(Math.hypot(...cross), a[0] * b[0] + a[1] * b[1] + a[2] * b[2]);
  const p = a.map((x, i) => (Math.sin((1 - f) * w) * x + Math.sin(f * w) * b[i]) / Math.sin(w));
  return [Math.atan2(p[1], p[0]) / rad, Math.atan2(p[2], Math.hypot(p[0], p[1])) / rad];
}

const post = (path: string, body: unknown, base?: string) => call('POST', path, { body, base });

describe('getprofile', () => {
  it('samples band 1 at evenly spaced great-circle points, both ends included, null outside', async () => {
    const [lon1, lat1, lon2, lat2, steps] = [10.13, 49.87, 33.2, 41.3, 25];
    const res = await post('/api/utils/getprofile', {
      path: '/Missions/T/geo3.tif',
      lat1,
      lon1,
      lat2,
      lon2,
      steps,
    });
    expect(res.status).toBe(200);
    // the established server's answer: the list as text, which the map client `.replace()`s, then parses
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(typeof res.text.replace).toBe('function');
    const body = JSON.parse(res.text.replace(/[\n\r]/g, '')) as [number, number, number | null][];
    expect(res.body).toEqual(body);
    expect(body).toHaveLength(steps);
    expect(body[0].slice(0, 2)).toEqual([lon1, lat1]);
    expect(body[steps - 1].slice(0, 2)).toEqual([lon2, lat2]);
    let inside = 0;
    body.forEach(([lon, lat, value], i) => {
      const [elon, elat] = slerp(lon1, lat1, lon2, lat2, i / (steps - 1));
      expect(lon).toBeCloseTo(elon, 6);
      expect(lat).toBeCloseTo(elat, 6);
      const c = Math.floor((elon - 10) / 0.5);
      const r = Math.floor((50 - elat) / 0.5);
      const expected =
        c < 0 || c >= 40 || r < 0 || r >= 20 ? null : geo(c, r, 0) === NODATA ? null : geo(c, r, 0);
      if (expected !== null) inside++;
      expect(value).toBe(expected);
    });
    expect(inside).toBeGreaterThan(5);
    expect(inside).toBeLessThan(steps);
  });

  it("axes 'xyz' answers bands 1-3 per point; MMGIS's form post works", async () => {
    const res = await call('POST', '/api/utils/getprofile', {
      body: new URLSearchParams({
        path: 'Missions/T/geo3.tif',
        lat1: '45.1',
        lon1: '11.2',
        lat2: '45.1',
        lon2: '12.9',
        steps: '4',
        axes: 'xyz',
      }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(200);
    const body = res.body as number[][];
    expect(body).toHaveLength(4);
    body.forEach((xyz, i) => {
      const [elon, elat] = slerp(11.2, 45.1, 12.9, 45.1, i / 3);
      const c = Math.floor((elon - 10) / 0.5);
      const r = Math.floor((50 - elat) / 0.5);
      expect(xyz).toEqual([geo(c, r, 0), geo(c, r, 1), geo(c, r, 2)]);
    });
  });

  it('transforms points into a projected CRS (UTM 33N) before picking the pixel', async () => {
    const [lon1, lat1, lon2, lat2, steps] = [13.6, 50.535, 13.7, 50.48, 12];
    const res = await post('/api/utils/getprofile', { path: 'T/utm.tif', lat1, lon1, lat2, lon2, steps });
    expect(res.status).toBe(200);
    const body = res.body as [number, number, number | null][];
    let inside = 0;
    body.forEach(([, , value], i) => {
      const [x, y] = proj4(UTM33, slerp(lon1, lat1, lon2, lat2, i / (steps - 1)));
      const c = Math.floor((x - 400000) / 100);
      const r = Math.floor((5600000 - y) / 100);
      const expected = c < 0 || c >= 60 || r < 0 || r >= 60 ? null : utm(c, r);
      if (expected !== null) inside++;
      expect(value).toBe(expected);
    });
    expect(inside).toBeGreaterThan(3);
  });

  it.each([
    ['steps below 2', { steps: 1 }, 'steps'],
    ['steps above 10000', { steps: 10001 }, 'steps'],
    ['steps not a number', { steps: 'many' }, 'steps'],
    ['latitude out of range', { lat1: 91 }, 'lat1'],
    ['missing lon2', { lon2: undefined }, 'lon2'],
    ['longitude past 360', { lon2: 360.5 }, 'lon2'],
    ['a fractional steps', { steps: 2.5 }, 'steps'],
    ['a number as text in JSON', { lat1: '45' }, 'lat1'],
    ['a path over 1024 characters', { path: `T/${'a'.repeat(1023)}` }, 'path'],
    ['axes over 16 characters', { axes: 'x'.repeat(17) }, 'axes'],
  ])('refuses %s with 400 naming the field', async (_l, change, field) => {
    const body = { path: 'T/geo3.tif', lat1: 45, lon1: 11, lat2: 46, lon2: 12, steps: 5, ...change };
    const res = await post('/api/utils/getprofile', body);
    expect(res.status).toBe(400);
    expect(res.body.message).toContain(field);
  });

  it('needs a login under AUTH=local', async () => {
    const res = await post(
      '/api/utils/getprofile',
      { path: 'T/geo3.tif', lat1: 45, lon1: 11, lat2: 46, lon2: 12, steps: 5 },
      apiUrlLocal(),
    );
    expect(res.status).toBe(401);
  });
});

describe('getbands', () => {
  it('reads band lists and ranges at a pixel (list or MMGIS string form); nodata is null', async () => {
    const a = await post('/api/utils/getbands', {
      path: 'T/geo3.tif',
      x: 5,
      y: 7,
      xyorll: 'xy',
      bands: [[1, 2], 3],
    });
    expect(a.status).toBe(200);
    // as text, as the established server answers it (its tools `.replace(/none/gi, 'null')` it first)
    expect(a.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(JSON.parse(a.text.replace(/none/gi, 'null'))).toEqual(a.body);
    expect(a.body).toEqual([
      [1, geo(5, 7, 0)],
      [2, geo(5, 7, 1)],
      [3, geo(5, 7, 2)],
    ]);
    const b = await call('POST', '/api/utils/getbands', {
      body: new URLSearchParams({
        type: 'band',
        path: 'Missions/T/geo3.tif',
        x: '3',
        y: '2',
        xyorll: 'xy',
        bands: '[[1,3]]',
      }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(b.body).toEqual([
      [1, null],
      [2, null],
      [3, null],
    ]);
  });

  it("with xyorll 'll' takes x as latitude and y as longitude (also in a projected CRS)", async () => {
    const [lon, lat] = [27.3, 41.2];
    const a = await post('/api/utils/getbands', {
      path: 'T/geo3.tif',
      x: lat,
      y: lon,
      xyorll: 'll',
      bands: '[2]',
    });
    const c = Math.floor((lon - 10) / 0.5);
    const r = Math.floor((50 - lat) / 0.5);
    expect(a.body).toEqual([[2, geo(c, r, 1)]]);
    const [x, y] = proj4(UTM33, [13.63, 50.52]);
    const u = await post('/api/utils/getbands', {
      path: 'T/utm.tif',
      x: 50.52,
      y: 13.63,
      xyorll: 'll',
      bands: [1],
    });
    expect(u.body).toEqual([[1, utm(Math.floor((x - 400000) / 100), Math.floor((5600000 - y) / 100))]]);
    const out = await post('/api/utils/getbands', {
      path: 'T/geo3.tif',
      x: 0,
      y: 0,
      xyorll: 'll',
      bands: [1],
    });
    expect(out.body).toEqual([[1, null]]);
    // Read the other way round (x as longitude), this place would be outside the raster.
    const swapped = await post('/api/utils/getbands', {
      path: 'T/geo3.tif',
      x: 45.2,
      y: 12.1,
      xyorll: 'll',
      bands: [1],
    });
    expect(swapped.body).toEqual([[1, geo(Math.floor((12.1 - 10) / 0.5), Math.floor((50 - 45.2) / 0.5), 0)]]);
  });

  it("with xyorll 'll' refuses a latitude x outside [-90, 90] and a longitude y outside [-360, 360]", async () => {
    const lat = await post('/api/utils/getbands', {
      path: 'T/geo3.tif',
      x: 120,
      y: 12,
      xyorll: 'll',
      bands: [1],
    });
    expect(lat.status).toBe(400);
    expect(lat.body.message).toContain("'x'");
    const lon = await post('/api/utils/getbands', {
      path: 'T/geo3.tif',
      x: 45,
      y: 400,
      xyorll: 'll',
      bands: [1],
    });
    expect(lon.status).toBe(400);
    expect(lon.body.message).toContain("'y'");
  });

  it.each([
    ['band 0', [0]],
    ['a band past the last', [4]],
    ['a reversed range', [[3, 1]]],
    ['not JSON', '[[1,'],
  ])('refuses %s with 400', async (_l, bands) => {
    const res = await post('/api/utils/getbands', { path: 'T/geo3.tif', x: 1, y: 1, xyorll: 'xy', bands });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('bands');
  });
});

describe('mission data paths', () => {
  it.each([
    ['parent segments', 'T/../../etc/passwd'],
    ['parent after Missions', '/Missions/../secret.tif'],
    ['an absolute path', '/etc/passwd'],
    ['a backslash', 'T\\geo3.tif'],
    ['NUL', 'T/geo3.tif\u0000.png'],
    ['a URL', 'http://169.254.169.254/latest/meta-data/'],
    ['a GDAL virtual path', '/vsicurl/http://example.org/x.tif'],
  ])('refuses %s with 400 on getprofile and getbands', async (_l, path) => {
    const p = await post('/api/utils/getprofile', { path, lat1: 45, lon1: 11, lat2: 46, lon2: 12, steps: 3 });
    expect(p.status).toBe(400);
    expect(p.body.message).toContain('path');
    const b = await post('/api/utils/getbands', { path, x: 1, y: 1, xyorll: 'xy', bands: [1] });
    expect(b.status).toBe(400);
  });

  it('a missing raster is 404; a file that is not a GeoTIFF is 422', async () => {
    const m = await post('/api/utils/getbands', { path: 'T/nope.tif', x: 1, y: 1, xyorll: 'xy', bands: [1] });
    expect(m.status).toBe(404);
    const n = await post('/api/utils/getbands', {
      path: 'T/not-a-tiff.tif',
      x: 1,
      y: 1,
      xyorll: 'xy',
      bands: [1],
    });
    expect(n.status).toBe(422);
    expect(n.body.status).toBe('failure');
  });
});

describe('queryTilesetTimes', () => {
  const q = (params: Record<string, string>) =>
    call('GET', `/api/utils/queryTilesetTimes?${new URLSearchParams(params)}`);
  const path = '/Missions/T/Layers/Tiles/_time_/{z}/{x}/{y}.png';

  it('lists the time folders in [starttime, endtime] compared as instants, sorted by time', async () => {
    const res = await q({
      path,
      starttime: '2022-08-09T16:00:00Z',
      endtime: '2022-08-09T19:00:00.000+02:00',
    });
    expect(res.status).toBe(200);
    // 19:00+02:00 is 17:00Z: before the first folder's time. As strings it would sort after it.
    expect(res.body).toEqual({ status: 'success', body: { times: [] } });
    const all = await q({ path, starttime: '2022-01-01T00:00:00Z', endtime: '2022-12-31T00:00:00Z' });
    expect(all.body.body.times).toEqual([
      { t: '2022-08-09T17:26:52Z', n: 'a' },
      { t: '2022-08-09T19:26:53+02:00', n: 'd' },
      { t: '2022-08-10T00:00:00Z', n: 'b' },
    ]);
    const edge = await q({ path, starttime: '2022-08-09T17:26:52Z', endtime: '2022-08-09T17:26:53Z' });
    expect(edge.body.body.times.map((t: any) => t.n)).toEqual(['a', 'd']);
  });

  it.each([
    [
      'no _time_',
      { path: 'T/Layers/Tiles/{z}', starttime: '2022-01-01T00:00:00Z', endtime: '2023-01-01T00:00:00Z' },
      400,
    ],
    ['missing endtime', { path, starttime: '2022-01-01T00:00:00Z' }, 400],
    ['reversed', { path, starttime: '2023-01-01T00:00:00Z', endtime: '2022-01-01T00:00:00Z' }, 400],
    ['not a time', { path, starttime: 'yesterday', endtime: '2022-01-01T00:00:00Z' }, 400],
    [
      'traversal',
      {
        path: '/Missions/../../_time_/x',
        starttime: '2022-01-01T00:00:00Z',
        endtime: '2023-01-01T00:00:00Z',
      },
      400,
    ],
    [
      'a missing folder',
      { path: 'T/Nope/_time_/x', starttime: '2022-01-01T00:00:00Z', endtime: '2023-01-01T00:00:00Z' },
      404,
    ],
  ])('%s → %i', async (_l, params, status) => {
    const res = await q(params as Record<string, string>);
    expect(res.status).toBe(status);
    expect(res.body.status).toBe('failure');
  });
});

describe('proj42wkt', () => {
  it('answers the WKT of a PROJ string as text, as GDAL writes it', async () => {
    const utm = await call('GET', `/api/utils/proj42wkt?proj4=${encodeURIComponent(UTM33)}`);
    expect(utm.status).toBe(200);
    expect(utm.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(utm.text).toMatch(/^PROJCS\["unknown",GEOGCS\["unknown",DATUM\["WGS_1984"/);
    expect(utm.text).toContain('PROJECTION["Transverse_Mercator"]');
    expect(utm.text).toContain('PARAMETER["central_meridian",15]');
    expect(utm.text).toContain('PARAMETER["scale_factor",0.9996]');
    expect(utm.text).toContain('PARAMETER["false_easting",500000]');
    const ll = await call(
      'GET',
      `/api/utils/proj42wkt?proj4=${encodeURIComponent('+proj=longlat +datum=WGS84 +no_defs')}`,
    );
    expect(ll.text).toMatch(/^GEOGCS\[/);
    expect(ll.text).toContain('SPHEROID["WGS 84",6378137,298.257223563');
  });

  it('refuses what is not a PROJ string with 400 naming proj4; needs a login under AUTH=local', async () => {
    for (const q of ['', '?proj4=', '?proj4=EPSG%3A4326', `?proj4=${encodeURIComponent('+proj=nonesuch')}`]) {
      const res = await call('GET', `/api/utils/proj42wkt${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.message).toContain('proj4');
    }
    const anon = await call('GET', `/api/utils/proj42wkt?proj4=${encodeURIComponent(UTM33)}`, {
      base: apiUrlLocal(),
    });
    expect(anon.status).toBe(401);
  });
});

describe('ll2aerll and chronice', () => {
  it('answer 501 with the established failure shape: no SPICE kernels here', async () => {
    for (const name of ['ll2aerll', 'chronice']) {
      const res = await post(`/api/utils/${name}`, { time: '2024-01-01T00:00:00Z' });
      expect(res.status).toBe(501);
      expect(res.body).toEqual({ status: 'failure', error: true, message: expect.stringMatching(/SPICE/) });
    }
  });
});

describe('healthcheck', () => {
  it('answers 200 with the database driver after a trivial query, under both AUTH modes', async () => {
    for (const base of [undefined, apiUrlLocal()]) {
      const res = await call('GET', '/api/utils/healthcheck', { base });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        status: 'success',
        message: 'Alive and well',
        database: { driver: process.env.DB_DRIVER === 'data-api' ? 'data-api' : 'postgres', ok: true },
      });
    }
  });
});
