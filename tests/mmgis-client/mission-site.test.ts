// The MMGIS 3.0.0 front end served by the service itself (docs/mission-site.md), no harness server: its
// pages, and a mission whose basemap, DEM tiles and legend are files under the mission data root, drawn by
// the real client in Chromium. The build is the operator's (never committed): MISSION_SITE_TEST_CLIENT names
// it for this file alone (.ci/run sets it to the shared copy where there is one), and the service this file
// starts gets it as MMGIS_CLIENT_DIR. Without a build the page tests are skipped, loudly;
// the /Missions checks, which need no build, always run.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type RunningService, startService } from '../../local/devServer.ts';
import { adminCookie, uniqueName, userWithSession } from '../helpers.ts';
import { countInk, launch, openPage, poll } from '../web/browser.ts';
import { CLIENT, HAS_BUILD, missionConfigOf } from './mission.ts';

if (!HAS_BUILD)
  console.warn('mission-site: no MMGIS 3.0.0 build (MISSION_SITE_TEST_CLIENT): its page tests are skipped.');

/** A 256×256 PNG of one colour (RGBA), made here so the test needs no image files. */
function solidPng(r: number, g: number, b: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(td));
    return Buffer.concat([len, td, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(256, 0);
  ihdr.writeUInt32BE(256, 4);
  ihdr.set([8, 6, 0, 0, 0], 8);
  const row = Buffer.alloc(1 + 256 * 4);
  for (let x = 0; x < 256; x++) row.set([r, g, b, 255], 1 + x * 4);
  const raw = Buffer.concat(Array.from({ length: 256 }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const MISSION = uniqueName('Site');
const BASEMAP = [200, 60, 20] as const;

function writeMissionFiles(root: string) {
  const tile = solidPng(...BASEMAP);
  // MMGIS's DEM tiles encode elevation in RGBA; a flat grey tile is a valid one.
  const dem = solidPng(128, 128, 128);
  for (let z = 0; z <= 2; z++)
    for (let x = 0; x < 2 ** z; x++)
      for (let y = 0; y < 2 ** z; y++) {
        for (const [layer, png] of [
          ['basemap', tile],
          ['dem', dem],
        ] as const) {
          const dir = join(root, MISSION, 'Layers', layer, String(z), String(x));
          mkdirSync(dir, { recursive: true });
          writeFileSync(join(dir, `${y}.png`), png);
        }
      }
  writeFileSync(
    join(root, MISSION, 'Layers', 'basemap', 'legend.csv'),
    'color,strokecolor,shape,value\n#c83c14,#000000,square,Site basemap legend entry\n',
  );
}

function missionConfig() {
  return missionConfigOf(MISSION, '2', [{ name: 'Legend', icon: 'format-list-bulleted-type', js: 'LegendTool', variables: {} }], [
    { name: 'Basemap', type: 'tile', url: 'Layers/basemap/{z}/{x}/{y}.png', tileformat: 'wmts', visibility: true, initialOpacity: 1, minZoom: 0, maxNativeZoom: 2, maxZoom: 22, legend: 'Layers/basemap/legend.csv', variables: {} },
    { name: 'Elevation', type: 'data', url: 'Layers/dem/{z}/{x}/{y}.png', demtileurl: 'Layers/dem/{z}/{x}/{y}.png', tileformat: 'wmts', visibility: true, initialOpacity: 1, minZoom: 0, maxNativeZoom: 2, maxZoom: 22, variables: {} },
  ]);
}

describe('the MMGIS front end and /Missions on the one host (npm start, AUTH=local)', () => {
  let service: RunningService;
  let browser: Browser;
  let missionData: string;

  beforeAll(async () => {
    missionData = mkdtempSync(join(tmpdir(), 'mmgis-site-'));
    writeMissionFiles(missionData);
    service = await startService({
      databaseUrl: inject('databaseUrl'),
      env: {
        LOG_LEVEL: 'warn',
        AUTH: 'local',
        ...(HAS_BUILD ? { MMGIS_CLIENT_DIR: CLIENT } : {}),
        MISSION_DATA_DIR: missionData,
      },
    });
    const cookie = await adminCookie();
    const add = await fetch(`${service.url}/api/configure/add`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify({ mission: MISSION, config: missionConfig() }),
    });
    expect(add.status).toBe(201);
    if (HAS_BUILD) browser = await launch();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    if (missionData) rmSync(missionData, { recursive: true, force: true });
  });

  it.skipIf(!HAS_BUILD)("serves MMGIS's login page at / until logged in, then the map page with its variables", async () => {
    const anon = await fetch(`${service.url}/`);
    expect(anon.status).toBe(200);
    expect(await anon.text()).toContain('MMGIS / Login');
    const page = await (await fetch(`${service.url}/`, { headers: { cookie: await adminCookie() } })).text();
    expect(page).toContain(`mmgisglobal.user="${inject('admin').username}"`);
    expect(page).toContain('mmgisglobal.permission="111"');
    expect(page).toContain('mmgisglobal.AUTH="local"');
    expect(page).toContain('mmgisglobal.version="3.0.0"');
    const beta = await (await fetch(`${service.url}/configure-beta`)).text();
    expect(beta).toContain('MMGIS / Configure');
    expect((await fetch(`${service.url}/build/index.pug`)).status).toBe(401);
    expect((await fetch(`${service.url}/public/login.js`)).status).toBe(200);
  });

  it.skipIf(!HAS_BUILD)('draws the basemap tile pyramid and asks for the DEM tiles from /Missions in the real client', async () => {
    const { page, errors } = await openPage(browser);
    const cookie = (await adminCookie()).split('=');
    await page.context().addCookies([{ name: cookie[0], value: cookie.slice(1).join('='), url: service.url }]);
    const answers: { url: string; status: number }[] = [];
    page.on('response', (r) => {
      if (r.url().includes('/Missions/')) answers.push({ url: r.url(), status: r.status() });
    });
    await page.goto(`${service.url}/?mission=${MISSION}`);
    const basemap = () => answers.filter((a) => a.url.includes('/Layers/basemap/') && a.url.endsWith('.png'));
    await poll(() => basemap().length, { timeout: 60_000 }).toBeGreaterThanOrEqual(4);
    await poll(() => answers.filter((a) => a.url.includes('/Layers/dem/')).length, { timeout: 60_000 }).toBeGreaterThan(0);
    expect(answers.filter((a) => a.status !== 200 && a.status !== 304)).toEqual([]);
    // The map's pixels: the basemap's colour covers the map.
    await page.waitForTimeout(1500);
    const shot = await page.screenshot({ path: process.env.MISSION_SITE_SCREENSHOT || undefined });
    expect(await countInk(browser, shot, [29, 31, 32])).toBeGreaterThan(100_000);
    const tinted = (await page.evaluate(
      `Array.from(document.querySelectorAll('img.leaflet-tile-loaded')).filter((i) => i.src.includes('/Missions/')).length`,
    )) as number;
    expect(tinted).toBeGreaterThanOrEqual(4);
    expect(errors.filter((e) => e.includes('/Missions/'))).toEqual([]);
    await page.context().close();
  });

  it.skipIf(!HAS_BUILD)("hands the client the basemap's legend from /Missions when the map loads", async () => {
    const { page } = await openPage(browser);
    const cookie = (await adminCookie()).split('=');
    await page.context().addCookies([{ name: cookie[0], value: cookie.slice(1).join('='), url: service.url }]);
    const legend: { status: number; body: string }[] = [];
    page.on('response', async (r) => {
      if (r.url().endsWith('/Layers/basemap/legend.csv'))
        legend.push({ status: r.status(), body: await r.text().catch(() => '') });
    });
    await page.goto(`${service.url}/?mission=${MISSION}`);
    await poll(() => legend.length, { timeout: 60_000 }).toBeGreaterThan(0);
    expect(legend[0].status).toBe(200);
    expect(legend[0].body).toContain('Site basemap legend entry');
    await page.context().close();
  });

  // The client fetches the legend with jQuery (`X-Requested-With`), yet a file keeps its real status: the
  // outsider's page gets a 403 for every file of the mission, the legend included, and draws no tile.
  it.skipIf(!HAS_BUILD)('shows a user without the mission no tile and no legend in the real client', async () => {
    const outsider = await userWithSession('user', [], service.url);
    const { page } = await openPage(browser);
    const c = outsider.cookie.split(';')[0].split('=');
    await page.context().addCookies([{ name: c[0], value: c.slice(1).join('='), url: service.url }]);
    const answers: { url: string; status: number }[] = [];
    page.on('response', (r) => {
      if (r.url().includes('/Missions/')) answers.push({ url: r.url(), status: r.status() });
    });
    await page.goto(`${service.url}/?mission=${MISSION}`);
    await poll(() => answers.filter((a) => a.url.endsWith('.png')).length, { timeout: 60_000 }).toBeGreaterThan(0);
    await page.waitForTimeout(1500);
    expect(answers.filter((a) => a.url.endsWith('legend.csv')).length).toBeGreaterThan(0);
    expect(answers.filter((a) => a.status !== 403)).toEqual([]);
    const drawn = (await page.evaluate(
      `Array.from(document.querySelectorAll('img.leaflet-tile-loaded')).filter((i) => i.src.includes('/Missions/')).length`,
    )) as number;
    expect(drawn).toBe(0);
    await page.context().close();
  });

  // Over HTTP with the session the page would carry.
  it("answers 403 for the mission's tiles to a user without the mission, and 401 to nobody", async () => {
    const outsider = await userWithSession('user', [], service.url);
    const direct = await fetch(`${service.url}/Missions/${MISSION}/Layers/basemap/0/0/0.png`, {
      headers: { cookie: outsider.cookie },
    });
    expect(direct.status).toBe(403);
    const own = await fetch(`${service.url}/Missions/${MISSION}/Layers/basemap/0/0/0.png`, {
      headers: { cookie: await adminCookie() },
    });
    expect(own.status).toBe(200);
    expect(own.headers.get('content-type')).toBe('image/png');
    expect(own.headers.get('vary')).toBe('Cookie, Authorization');
    const anon = await fetch(`${service.url}/Missions/${MISSION}/Layers/basemap/0/0/0.png`);
    expect(anon.status).toBe(401);
  });
});
