import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, apiUrl, call, uniqueName } from '../helpers.ts';
import { countInk, keepScreenshot, launch, openPage, poll } from './browser.ts';

const BACKGROUND: [number, number, number] = [238, 240, 234];

/** A square polygon around (10, 20) big enough to fill the map's middle at zoom 5. */
const areas = {
  type: 'FeatureCollection',
  features: [
    {
      type: 'Feature',
      properties: { kind: 'crater', depth: 42 },
      geometry: {
        type: 'Polygon',
        coordinates: [
          [
            [5, 15],
            [15, 15],
            [15, 25],
            [5, 25],
            [5, 15],
          ],
        ],
      },
    },
  ],
};

/** A 10° square centred on (lng, 0), with a time property `t`. */
const square = (lng: number, t: string) => ({
  type: 'Feature',
  properties: { t },
  geometry: {
    type: 'Polygon',
    coordinates: [
      [
        [lng - 5, -5],
        [lng + 5, -5],
        [lng + 5, 5],
        [lng - 5, 5],
        [lng - 5, -5],
      ],
    ],
  },
});
/** West of the view's centre on the window's first day, east of it in December. */
const timed = {
  type: 'FeatureCollection',
  features: [square(-9, '2020-01-01T00:00:00Z'), square(9, '2020-12-20T00:00:00Z')],
};

describe('map viewer in Chromium', () => {
  let browser: Browser;
  const dataset = uniqueName('web_areas');
  const mission = uniqueName('web_viewer');
  const layers = [
    {
      name: 'Data',
      type: 'header',
      sublayers: [{ name: 'Areas', type: 'vectortile', url: `geodatasets:${dataset}`, visibility: true }],
    },
  ];

  const timedDataset = uniqueName('web_timed');
  const timedMission = uniqueName('web_time');

  beforeAll(async () => {
    const t = await call('POST', '/api/geodatasets/recreate', {
      token: adminToken(),
      body: { name: timedDataset, geojson: timed, startProp: 't' },
    });
    expect(t.status, t.text).toBe(200);
    const tm = await call('POST', '/api/configure/upsert', {
      token: adminToken(),
      body: {
        mission: timedMission,
        config: {
          msv: { view: [0, 0, 4] },
          tools: [],
          time: { enabled: true, initialstart: '2020-01-01T00:00:00Z', initialend: '2020-12-31T00:00:00Z' },
          layers: [
            {
              name: 'Timed',
              type: 'vectortile',
              url: `geodatasets:${timedDataset}`,
              visibility: true,
              time: { enabled: true },
            },
          ],
        },
      },
    });
    expect(tm.status, tm.text).toBe(200);
    const r = await call('POST', '/api/geodatasets/recreate', {
      token: adminToken(),
      body: { name: dataset, geojson: areas },
    });
    expect(r.status, r.text).toBe(200);
    const u = await call('POST', '/api/configure/upsert', {
      token: adminToken(),
      body: { mission, config: { msv: { view: [20, 10, 5] }, tools: [], layers } },
    });
    expect(u.status, u.text).toBe(200);
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('draws the tiles, toggles the layer, shows a popup and reloads on a pushed change', async () => {
    const { page, errors } = await openPage(browser);
    await page.goto(`${apiUrl()}/?mission=${mission}`);
    await poll(() => page.getByLabel('Mission').inputValue()).toBe(mission);
    await page.waitForFunction(() => performance.getEntriesByName('mmgis:first-tile').length > 0, null, {
      timeout: 30_000,
    });
    const map = page.locator('#map canvas');
    await poll(async () => countInk(browser, await map.screenshot(), BACKGROUND), {
      timeout: 15_000,
    }).toBeGreaterThan(10_000);
    await keepScreenshot(page, 'viewer');

    const toggle = page.getByRole('checkbox', { name: 'Areas' });
    await toggle.uncheck();
    await poll(async () => countInk(browser, await map.screenshot(), BACKGROUND)).toBeLessThan(5000); // only the zoom buttons
    await toggle.check();
    await poll(async () => countInk(browser, await map.screenshot(), BACKGROUND)).toBeGreaterThan(10_000);

    const box = (await map.boundingBox())!;
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    const popup = page.locator('.maplibregl-popup');
    await poll(() => popup.textContent()).toContain('crater');
    expect(await popup.textContent()).toContain('Areas');
    await keepScreenshot(page, 'viewer-popup');

    // The page's WebSocket is open (its $connect stored), so the push below reaches it.
    await page.waitForFunction(() => performance.getEntriesByName('mmgis:live').length > 0, null, {
      timeout: 30_000,
    });
    const add = await call('POST', '/api/configure/addLayer', {
      token: adminToken(),
      body: {
        mission,
        layer: { name: 'Pushed layer', type: 'vector', url: `geodatasets:${dataset}` },
        forceClientUpdate: true,
      },
    });
    expect(add.status, add.text).toBe(200);
    await page.getByRole('checkbox', { name: 'Pushed layer' }).waitFor({ timeout: 30_000 });
    expect(errors).toEqual([]);
  });

  it('shows a small notice while a thinned tile is on screen, and none when every feature is drawn', async () => {
    // 6,000 points on distinct pixels of one z2 tile: more than the feature cap (4,096), so the tiles of
    // z0-z2 are thinned and marked; a z8 tile holds a few of them, all drawn.
    const grid = uniqueName('web_grid');
    const features = Array.from({ length: 6000 }, (_, i) => ({
      type: 'Feature',
      properties: { i },
      geometry: { type: 'Point', coordinates: [-80 + (i % 80) * 0.875, 5 + Math.floor(i / 80) * 0.73] },
    }));
    const r = await call('POST', '/api/geodatasets/recreate', {
      token: adminToken(),
      body: { name: grid, geojson: { type: 'FeatureCollection', features } },
    });
    expect(r.status, r.text).toBe(200);
    const gridLayers = [{ name: 'Grid', type: 'vectortile', url: `geodatasets:${grid}`, visibility: true }];
    const overview = uniqueName('web_thin');
    const close = uniqueName('web_whole');
    for (const [m, view] of [
      [overview, [30, -45, 2]],
      [close, [5.73, -79.125, 8]],
    ] as const) {
      const u = await call('POST', '/api/configure/upsert', {
        token: adminToken(),
        body: { mission: m, config: { msv: { view }, tools: [], layers: gridLayers } },
      });
      expect(u.status, u.text).toBe(200);
    }
    const { page, errors } = await openPage(browser);
    await page.goto(`${apiUrl()}/?mission=${overview}`);
    const notice = page.locator('#thinned');
    await poll(() => notice.isVisible(), { timeout: 30_000 }).toBe(true);
    expect(await notice.getAttribute('role')).toBe('status');
    expect(await notice.textContent()).toContain('zoom in');
    await keepScreenshot(page, 'viewer-thinned');
    await page.getByLabel('Mission').selectOption(close);
    await poll(() => page.getByLabel('Mission').inputValue()).toBe(close);
    // A function, not a string: the page's CSP refuses eval; `globalThis` as the suite has no DOM types.
    await page.waitForFunction(
      (m) => (globalThis as any).document.getElementById('app')?.dataset.loaded === m,
      close,
      {
        timeout: 30_000,
      },
    );
    await poll(() => notice.isVisible(), { timeout: 30_000 }).toBe(false);
    expect(errors).toEqual([]);
  });

  it('re-queries a timed layer with the window the time slider sets', async () => {
    const { page, errors } = await openPage(browser);
    const ends: string[] = [];
    page.on('request', (r) => {
      const u = new URL(r.url());
      if (u.pathname === `/api/geodatasets/get/${timedDataset}`)
        ends.push(u.searchParams.get('endtime') ?? '');
    });
    await page.goto(`${apiUrl()}/?mission=${timedMission}`);
    await poll(() => page.getByLabel('Mission').inputValue()).toBe(timedMission);
    const map = page.locator('#map canvas');
    const box = (await map.boundingBox())!;
    /** Non-background pixels of the map's west or east half (the zoom buttons sit in the east one). */
    const ink = async (half: 0 | 1) =>
      countInk(
        browser,
        await page.screenshot({
          clip: { x: box.x + (half * box.width) / 2, y: box.y, width: box.width / 2, height: box.height },
        }),
        BACKGROUND,
      );
    await poll(() => ink(0), { timeout: 30_000 }).toBeGreaterThan(20_000);
    await poll(() => ink(1)).toBeGreaterThan(20_000);
    expect(new Set(ends)).toEqual(new Set(['2020-12-31T00:00:00Z']));

    const slider = page.getByRole('slider', { name: 'Time' });
    const output = page.locator('#time output');
    await poll(() => output.textContent()).toBe('2020-12-31 00:00');
    await slider.focus();
    await slider.press('Home');
    await poll(() => output.textContent()).toBe('2020-01-01 00:00');
    await poll(() => ends.at(-1)).toBe('2020-01-01T00:00:00.000Z');
    await poll(() => ink(1)).toBeLessThan(5000); // the late square is gone, only the zoom buttons remain
    // The map redraws after the window changes: the early square comes back (cleared meanwhile, the late
    // one's check alone could pass on a blank map).
    await poll(() => ink(0), { timeout: 30_000 }).toBeGreaterThan(20_000);
    expect(await ink(1)).toBeLessThan(5000);
    await keepScreenshot(page, 'viewer-time');
    expect(errors).toEqual([]);
  });

  it('serves the pages with cache and security headers', async () => {
    const html = await fetch(`${apiUrl()}/`);
    const text = await html.text();
    expect(html.headers.get('cache-control')).toBe('no-cache');
    const etag = html.headers.get('etag')!;
    expect(etag).toMatch(/^"/);
    expect((await fetch(`${apiUrl()}/configure`, { headers: { 'if-none-match': etag } })).status).toBe(200);
    expect((await fetch(`${apiUrl()}/`, { headers: { 'if-none-match': etag } })).status).toBe(304);
    const csp = html.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(html.headers.get('x-content-type-options')).toBe('nosniff');
    const asset = /src="(\/assets\/[^"]+\.js)"/.exec(text)![1];
    const js = await fetch(`${apiUrl()}${asset}`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await fetch(`${apiUrl()}/assets/nope-0123456789.js`)).status).toBe(404);
    expect((await fetch(`${apiUrl()}/assets/..%2Fconfigure.html`)).status).toBe(404);
  });
});
