import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { writeTiledTiff } from '../fixtures/rasters.ts';
import { adminToken, apiUrl, call, uniqueName, userWithSession } from '../helpers.ts';

/**
 * The established MMGIS web client's own requests, replayed as it sends them (method, jQuery's form
 * encoding of `$.ajax` data, `X-Requested-With`, or the configure app's JSON `fetch`), and the fields it
 * reads from each answer, read the way its code reads them (src/pre/calls.js, src/essence/Tools/Draw,
 * Measure, configure/src). The paths are lower-case here; the client's `API/...` spelling of some of them
 * is the same route (docs/contract.md, section 1).
 */

const MISSION = uniqueName('Shapes');
/** A 20×10 px elevation raster of 0.1° over (0–2°E, 0–1°N), values 100 + column (never 0 or nodata). */
const elevation = (c: number) => 100 + c;

let user: { username: string; cookie: string };
let adminCookie: string;

beforeAll(async () => {
  const dir = join(inject('missionDataDir'), MISSION);
  mkdirSync(dir, { recursive: true });
  writeTiledTiff(join(dir, 'dem.tif'), {
    width: 20,
    height: 10,
    bands: 1,
    tile: 16,
    epsg: 4326,
    geographic: true,
    origin: [0, 1],
    pixel: [0.1, 0.1],
    value: (c) => elevation(c),
  });
  user = await userWithSession('user');
  adminCookie = (await userWithSession('admin')).cookie;
});

/** jQuery's `$.ajax({type, url, data})` as `calls.api` sends it: a urlencoded form, `X-Requested-With`. */
function jquery(method: 'GET' | 'POST', path: string, data: Record<string, string> = {}, cookie?: string) {
  const form = new URLSearchParams(data).toString();
  const headers: Record<string, string> = { 'x-requested-with': 'XMLHttpRequest', origin: apiUrl() };
  if (method === 'GET') return call('GET', form ? `${path}?${form}` : path, { headers, cookie });
  headers['content-type'] = 'application/x-www-form-urlencoded; charset=UTF-8';
  return call('POST', path, { body: form, headers, cookie });
}

/** The configure app's `fetch` (`Qe.api`): JSON, credentials included, no `X-Requested-With`. */
function configureApp(method: 'GET' | 'POST', path: string, body: unknown, cookie: string) {
  return call(method, path, {
    body: method === 'POST' ? body : undefined,
    headers: { 'content-type': 'application/json', origin: apiUrl() },
    cookie,
  });
}

/** What `calls.api` hands its success callback: a string answer or a `status:'success'` object. */
function callsApiSuccess(res: { status: number; text: string; headers: Headers }): unknown {
  expect(res.status).toBeLessThan(300);
  const json = /json/.test(res.headers.get('content-type') ?? '');
  const data = json ? JSON.parse(res.text) : res.text;
  const ok = typeof data === 'string' || !Object.hasOwn(data, 'status') || data.status === 'success';
  expect(ok, `calls.api would call the failure handler: ${res.text.slice(0, 200)}`).toBe(true);
  return data;
}

describe('Draw tool', () => {
  it('files/getfiles: every file owner is a string, the masters are the lead group’s', async () => {
    const res = await jquery('POST', '/api/files/getfiles', {}, user.cookie);
    const t = callsApiSuccess(res) as { body: Record<string, any>[] };
    // DrawTool.getFiles: sorts by name, groups by intent, reads descriptions
    t.body.sort((a, b) => String(b.file_name).localeCompare(String(a.file_name)));
    for (const f of t.body) {
      // populateFiles: attr("file_owner") of each list item, then .toLowerCase() in the search filter
      expect(typeof f.file_owner).toBe('string');
      expect(() => f.file_owner.toLowerCase()).not.toThrow();
      expect(typeof (f.file_description || '')).toBe('string');
      expect(f.file_owner_group === null || Array.isArray(f.file_owner_group)).toBe(true);
    }
    const masters = t.body.filter((f) => f.is_master);
    expect(masters).toHaveLength(6);
    for (const m of masters)
      expect(m).toMatchObject({ file_owner: 'group', file_owner_group: ['mmgis-group'] });
  });

  it("files/make: the new-file modal's form with jQuery's null template (`template=`)", async () => {
    const name = uniqueName('made');
    const res = await jquery(
      'POST',
      '/api/files/make',
      { file_name: name, intent: 'all', template: '' },
      user.cookie,
    );
    const made = callsApiSuccess(res) as { status: string; body: { file_id: number } };
    // makeFile: `"success" === e.status` then `t(e.body.file_id)`
    expect(made.status).toBe('success');
    expect(Number.isInteger(made.body.file_id)).toBe(true);
    const list = (await jquery('POST', '/api/files/getfiles', {}, user.cookie)).body.body;
    const mine = list.find((f: any) => f.id === made.body.file_id);
    expect(mine).toMatchObject({ file_name: name, file_owner: user.username, template: null });
  });
});

describe('Measure tool', () => {
  it('utils/getprofile: the raw list as text, which it .replace()s and parses', async () => {
    const [lat1, lon1, lat2, lon2, steps] = ['0.5', '0.25', '0.5', '1.75', '7'];
    const res = await jquery('POST', '/api/utils/getprofile', {
      type: '2pts',
      lat1,
      lon1,
      lat2,
      lon2,
      steps,
      path: `Missions/${MISSION}/dem.tif`,
      axes: 'z',
    });
    expect(res.status).toBe(200);
    // jQuery hands a text/plain answer over as a string; MeasureTool: `t.length < 3` means no data
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const t = res.text;
    expect(t.length).toBeGreaterThanOrEqual(3);
    const rows = JSON.parse(t.replace(/[\n\r]/g, '')) as [number, number, number][];
    expect(rows).toHaveLength(7);
    expect(rows[0].slice(0, 2)).toEqual([0.25, 0.5]);
    expect(rows[6].slice(0, 2)).toEqual([1.75, 0.5]);
    // elevations as the raster holds them: the column of each point's longitude
    expect(rows[0][2]).toBe(elevation(Math.floor(0.25 / 0.1)));
    expect(rows[6][2]).toBe(elevation(Math.floor(1.75 / 0.1)));
    for (const r of rows) expect(r[2]).toBeGreaterThan(0);
  });

  it('utils/getbands (elevation under the cursor): text it .replace(/none/gi, "null")s and parses', async () => {
    const res = await jquery('POST', '/api/utils/getbands', {
      type: 'band',
      x: '0.55',
      y: '1.23',
      xyorll: 'll',
      bands: '[[1,1]]',
      path: `Missions/${MISSION}/dem.tif`,
    });
    const text = callsApiSuccess(res) as string;
    expect(typeof text).toBe('string');
    const e = JSON.parse(text.replace(/none/gi, 'null'));
    // Coordinates: `e[0][1]` is the elevation (x latitude, y longitude, as the tools send: docs/utils.md)
    expect(e[0][0]).toBe(1);
    expect(e[0][1]).toBe(elevation(Math.floor(1.23 / 0.1)));
  });

  it('a failure stays the {status, message} JSON', async () => {
    const res = await jquery('POST', '/api/utils/getprofile', {
      lat1: '0',
      lon1: '0',
      lat2: '1',
      lon2: '1',
      steps: '3',
      path: `Missions/${MISSION}/missing.tif`,
    });
    expect(res.headers.get('content-type')).toMatch(/json/);
    expect(res.body).toMatchObject({ status: 'failure', message: expect.stringContaining('missing.tif') });
  });
});

describe('short links', () => {
  it('shortens the page’s own address (a query) and expands it to a working page address', async () => {
    const query = encodeURI(`?mission=${MISSION}&site=S&mapLon=1.5&mapLat=0.5&mapZoom=7&on=a b$1.00`);
    const short = callsApiSuccess(await jquery('POST', '/api/shortener/shorten', { url: query })) as any;
    // QueryURL: `Xo.url = href.split("?")[0] + "?s=" + t.body.url`
    expect(short.body.url).toMatch(/^[0-9a-z]+$/);
    const page = `${apiUrl()}/?s=${short.body.url}`;
    const ex = callsApiSuccess(
      await jquery('POST', '/api/shortener/expand', { short: page.split('?s=')[1] }),
    ) as any;
    // essence: `window.history.replaceState("", "", href.split("?s=")[0] + t.body.url)`
    const opened = new URL(page.split('?s=')[0] + ex.body.url);
    expect(opened.origin).toBe(apiUrl());
    expect(opened.pathname).toBe('/');
    expect(opened.searchParams.get('mission')).toBe(MISSION);
    expect(opened.searchParams.get('mapZoom')).toBe('7');
  });

  it('shortens the absolute page address too; another site is refused', async () => {
    const url = `${apiUrl()}/?mission=${MISSION}`;
    const short = callsApiSuccess(await jquery('POST', '/api/shortener/shorten', { url })) as any;
    const go = await call('GET', `/api/shortener/${short.body.url}`);
    expect(go.status).toBe(302);
    expect(go.headers.get('location')).toBe(`/?mission=${MISSION}`);
    const evil = await call('POST', '/api/shortener/shorten', { body: { url: 'https://evil.example/?x' } });
    expect(evil.status).toBe(400);
  });
});

describe('configure app', () => {
  it('API Tokens page: longtermtoken/get puts the list under `tokens`, with what the page shows', async () => {
    const name = uniqueName('tok');
    const gen = await configureApp(
      'POST',
      '/api/longtermtoken/generate',
      { name, period: 'never' },
      adminCookie,
    );
    // the Generate button: `"success" === e.status` then shows `e.body.token`
    expect(gen.body.status).toBe('success');
    expect(typeof gen.body.body.token).toBe('string');
    const res = await configureApp('GET', '/api/longtermtoken/get', null, adminCookie);
    expect(res.body.status).toBe('success');
    expect(Array.isArray(res.body.tokens)).toBe(true);
    const row = res.body.tokens.find((x: any) => x.name === name);
    // each row shows n.id, n.token, n.createdAt and, from n.period, "never expires" or the days left
    expect(row.token).toContain(name);
    expect(row.token).not.toContain(gen.body.body.token);
    expect(row.period).toBe('never');
    expect(Number.isNaN(new Date(row.createdAt).getTime())).toBe(false);
    const week = 7 * 24 * 3600_000;
    await configureApp(
      'POST',
      '/api/longtermtoken/generate',
      { name: `${name}w`, period: week },
      adminCookie,
    );
    const later = (await configureApp('GET', '/api/longtermtoken/get', null, adminCookie)).body.tokens;
    expect(Number.parseInt(later.find((x: any) => x.name === `${name}w`).period, 10)).toBe(week);
  });

  it('New Mission: configure/add answers a message; the new mission has projection bounds and origin', async () => {
    const mission = uniqueName('NewM');
    const add = await configureApp('POST', '/api/configure/add', { mission, makedir: false }, adminCookie);
    expect(add.body).toMatchObject({ status: 'success', message: expect.any(String) });
    const cfg = (await configureApp('GET', `/api/configure/get?mission=${mission}`, null, adminCookie)).body;
    expect(cfg.projection.bounds).toHaveLength(4);
    expect(cfg.projection.origin).toHaveLength(2);
  });

  it('GeoDatasets page: entries name the time fields start_time_field / end_time_field', async () => {
    const name = uniqueName('gd');
    const fc = {
      type: 'FeatureCollection',
      features: [
        {
          type: 'Feature',
          properties: { t0: '2024-01-01T00:00:00Z' },
          geometry: { type: 'Point', coordinates: [1, 1] },
        },
      ],
    };
    const made = await call('POST', '/api/geodatasets/recreate', {
      token: adminToken(),
      body: { name, startProp: 't0', geojson: fc },
    });
    expect(made.status).toBeLessThan(300);
    const res = await configureApp('POST', '/api/geodatasets/entries', {}, adminCookie);
    const e = res.body.body.entries.find((x: any) => x.name === name);
    expect(e).toMatchObject({ name, num_features: 1, start_time_field: 't0', end_time_field: null });
  });
});

describe('login page, layer export, SPICE tools', () => {
  it('users/has: the admin login page learns whether an account exists', async () => {
    const res = await jquery('POST', '/api/users/has', {});
    const data = callsApiSuccess(res) as any;
    // adminlogin.js: `data.status == "success"` and `data.has == false` → first-administrator form
    expect(data).toEqual({ status: 'success', has: true });
  });

  it('utils/proj42wkt: the WKT of the custom CRS, as text (the .prj of a shapefile export)', async () => {
    const proj4 =
      '+proj=eqc +lat_ts=0 +lat_0=0 +lon_0=180 +x_0=0 +y_0=0 +a=3396190 +b=3396190 +units=m +no_defs';
    const res = await jquery('GET', '/api/utils/proj42wkt', { proj4 }, user.cookie);
    const wkt = callsApiSuccess(res) as string;
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(wkt).toMatch(/^PROJCS\[/);
    expect(wkt).toContain('PROJECTION["Equirectangular"]');
    expect(wkt).toContain('SPHEROID["unknown",3396190,0]');
    expect(wkt).toContain('PARAMETER["central_meridian",180]');
    const bad = await call('GET', `/api/utils/proj42wkt?proj4=${encodeURIComponent('+proj=nonesuch')}`);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ status: 'failure', message: expect.stringContaining('proj4') });
    for (const q of ['', '?proj4=%2Fetc%2Fpasswd', `?proj4=${encodeURIComponent('+init=epsg:4326')}`]) {
      expect((await call('GET', `/api/utils/proj42wkt${q}`)).status).toBe(400);
    }
  });

  it.each([
    [
      'll2aerll',
      { lng: '137.4', lat: '-4.6', height: '-4500', target: 'SUN', time: '2024-01-01 00:00:00 UTC' },
    ],
    ['chronice', { body: 'MARS', target: 'MSL', from: 'utc', time: '2024-01-17T20:56:20.280Z' }],
  ])('utils/%s: the established failure shape ({error: true, message}), 501', async (name, data) => {
    const res = await jquery('POST', `/api/utils/${name}`, data);
    expect(res.status).toBe(501);
    expect(res.body).toEqual({ status: 'failure', error: true, message: expect.stringContaining('SPICE') });
  });
});
