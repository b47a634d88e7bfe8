// The MMGIS 3.0.0 Draw tool in the real page, served by the service itself (docs/mission-site.md) under
// AUTH=local and driven in Chromium (docs/draw.md): a point drawn in a file shows on the map once the file is
// on (the client asks `files/getfile` with an empty `time`, "now"); another user's public file turned on
// shows its feature; an undo, then the History tab reads the established server's labels. The page's own
// functions and buttons do the work, as a person's clicks would; only the other user's file is made over the
// JSON API, as that user's own client would. The build is the operator's (MISSION_SITE_TEST_CLIENT, as in
// mission-site.test.ts); without it these tests are skipped, loudly.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type RunningService, startService } from '../../local/devServer.ts';
import { adminCookie, uniqueName, userWithSession } from '../helpers.ts';
import { launch, openPage, poll } from '../web/browser.ts';
import { CLIENT, HAS_BUILD, missionConfigOf } from './mission.ts';

if (!HAS_BUILD) console.warn('draw-flows: no MMGIS 3.0.0 build (MISSION_SITE_TEST_CLIENT): its tests are skipped.');

const MISSION = uniqueName('Draw');

function missionConfig() {
  return missionConfigOf(MISSION, '6', [{ name: 'Draw', icon: 'lead-pencil', js: 'DrawTool', variables: {} }]);
}

interface Exchange {
  path: string;
  status: number;
  request: string;
  body: string;
}

/** The map page of the mission for the session `cookie`, with every API exchange recorded. */
async function mapPage(browser: Browser, base: string, cookie: string) {
  const { page, errors } = await openPage(browser);
  const [name, ...rest] = cookie.split(';')[0].split('=');
  await page.context().addCookies([{ name, value: rest.join('='), url: base }]);
  const api: Exchange[] = [];
  page.on('response', async (r) => {
    const url = new URL(r.url());
    if (!url.pathname.toLowerCase().startsWith('/api/')) return;
    const body = await r.text().catch(() => '');
    api.push({ path: url.pathname, status: r.status(), request: r.request().postData() ?? '', body });
  });
  await page.goto(`${base}/?mission=${MISSION}`, { waitUntil: 'domcontentloaded' });
  await page.waitForFunction('!document.querySelector(".LoadingPage") && !!(window.L_ && window.L_.mission)', null, {
    timeout: 60_000,
  });
  await page.click('#toolButtonDraw', { timeout: 10_000 });
  await poll(() => api.filter((x) => x.path.endsWith('/files/getfiles')).length, { timeout: 20_000 }).toBeGreaterThan(0);
  return { page, errors, api };
}

/** The last exchange with `path` (and a request body matching `request`) after the `after`th, once there is one. */
async function answer(api: Exchange[], path: string, after = 0, request?: RegExp): Promise<Exchange> {
  const found = () => api.slice(after).filter((x) => x.path.endsWith(path) && (!request || request.test(x.request)));
  await poll(() => found().length, { timeout: 20_000 }).toBeGreaterThan(0);
  return found().pop()!;
}

/** Whether file `id` is on (its features drawn) in the page's Draw tool. */
function isOn(page: Page, id: number): Promise<boolean> {
  return page.evaluate((id) => (globalThis as any).ToolController_.getTool('DrawTool').filesOn.includes(id), id);
}

/** Turns file `id` on (or off) with its checkbox; the file list's panel overlaps it, so the click is dispatched. */
async function toggle(page: Page, id: number) {
  await (await fileElement(page, id, 'drawToolFileCheckbox')).dispatchEvent('click');
}

/** A new file of the page's user, made with the Draw tool's New File dialog; its id. */
async function newFile(page: Page, api: Exchange[], name: string): Promise<number> {
  const before = api.length;
  await page.click('#drawToolDrawFilesNew', { timeout: 10_000 });
  await page.fill('.drawToolFileModalName', name, { timeout: 10_000 });
  await page.click('#drawToolFileModalActionsCreate');
  const made = await answer(api, '/files/make', before);
  expect(made.status, made.body).toBe(200);
  const id = JSON.parse(made.body).body.file_id as number;
  await fileElement(page, id, 'drawToolFileSelector');
  return id;
}

/** Opens the file list's folder holding file `id` (folders start closed), as a person would; `id`'s element `cls`. */
async function fileElement(page: Page, id: number, cls: 'drawToolFileSelector' | 'drawToolFileCheckbox') {
  const selector = `.${cls}[file_id="${id}"]`;
  await page.waitForSelector(selector, { state: 'attached', timeout: 15_000 });
  if ((await page.locator(`${selector}:visible`).count()) === 0) {
    const group = await page.evaluate(
      (selector) => (globalThis as any).document.querySelector(selector)?.closest('.drawToolDrawFilesGroupElem')?.getAttribute('group_name'),
      selector,
    );
    if (group) await page.locator(`.drawToolDrawFilesGroupElemHead[group_name="${group}"]`).first().dispatchEvent('click');
  }
  return page.locator(`${selector}:visible`).first();
}

/** A point added to file `id` by the Draw tool's own `addDrawing`, as its point drawing sends it. */
function addPoint(page: Page, id: number, name: string, lng: number): Promise<boolean> {
  return page.evaluate(
    ([id, name, lng]) =>
      new Promise<boolean>((resolve) => {
        const D = (globalThis as any).ToolController_.getTool('DrawTool');
        D.addDrawing(
          {
            file_id: id,
            intent: 'point',
            properties: JSON.stringify({ name, style: {} }),
            geometry: JSON.stringify({ type: 'Point', coordinates: [lng, 0.5] }),
          },
          () => resolve(true),
          () => resolve(false),
        );
        setTimeout(() => resolve(false), 15_000);
      }),
    [id, name, lng] as const,
  );
}

/** The names and coordinates of the features file `id` has on the map (its `DrawTool_<id>` layers). */
function onMap(page: Page, id: number): Promise<{ name: string; coordinates: number[] }[]> {
  return page.evaluate((id) => {
    const w = globalThis as any;
    const layers: any[] = w.L_.layers.layer[`DrawTool_${id}`] ?? [];
    const out: { name: string; coordinates: number[] }[] = [];
    for (const l of layers) {
      if (!l || !w.mmgisAPI.map.hasLayer(l) || typeof l.toGeoJSON !== 'function') continue;
      const g = l.toGeoJSON();
      for (const f of g.type === 'FeatureCollection' ? g.features : [g])
        out.push({ name: f.properties?.name, coordinates: f.geometry?.coordinates });
    }
    return out;
  }, id);
}

describe('the MMGIS Draw tool end to end (npm start, AUTH=local)', () => {
  let service: RunningService;
  let browser: Browser;
  let admin: string;

  beforeAll(async () => {
    service = await startService({
      databaseUrl: inject('databaseUrl'),
      env: { LOG_LEVEL: 'warn', AUTH: 'local', ...(HAS_BUILD ? { MMGIS_CLIENT_DIR: CLIENT } : {}) },
    });
    admin = await adminCookie();
    const add = await fetch(`${service.url}/api/configure/add`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: admin },
      body: JSON.stringify({ mission: MISSION, config: missionConfig() }),
    });
    expect(add.status).toBe(201);
    if (HAS_BUILD) browser = await launch();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  it.skipIf(!HAS_BUILD)("a point drawn in the user's own file shows on the map", async () => {
    const { page, api, errors } = await mapPage(browser, service.url, admin);
    const start = api.length;
    const id = await newFile(page, api, uniqueName('points'));
    // A new file is selected and on (else selecting it turns it on): files/getfile with an empty time, "now".
    if (!(await isOn(page, id))) await (await fileElement(page, id, 'drawToolFileSelector')).dispatchEvent('click');
    const got = await answer(api, '/files/getfile', start, new RegExp(`(^|&)id=${id}(&|$)`));
    expect(got.request).toMatch(/(^|&)time=(&|$)/);
    expect(got.status, got.body).toBe(200);
    expect(await addPoint(page, id, 'drawn here', 0.25)).toBe(true);
    // Off and on again: the file's features as the service now holds them.
    const again = api.length;
    await page.evaluate((id) => (globalThis as any).ToolController_.getTool('DrawTool').toggleFile(id, 'off'), id);
    await toggle(page, id);
    expect((await answer(api, '/files/getfile', again)).status).toBe(200);
    await poll(() => onMap(page, id), { timeout: 15_000 }).toEqual([{ name: 'drawn here', coordinates: [0.25, 0.5] }]);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it.skipIf(!HAS_BUILD)("another user's public file, turned on, shows its feature", async () => {
    const other = await userWithSession('user', [MISSION], service.url);
    const post = async (path: string, body: unknown) => {
      const r = await fetch(`${service.url}/api/${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie: other.cookie, origin: service.url },
        body: JSON.stringify(body),
      });
      const json = (await r.json()) as any;
      expect(r.status, JSON.stringify(json)).toBe(200);
      return json;
    };
    const made = await post('files/make', { file_name: uniqueName('shared'), intent: 'all', public: '1' });
    const id = made.body.file_id as number;
    await post('draw/add', {
      file_id: id,
      intent: 'point',
      properties: JSON.stringify({ name: 'theirs', style: {} }),
      geometry: JSON.stringify({ type: 'Point', coordinates: [-0.25, 0.5] }),
    });
    const { page, api, errors } = await mapPage(browser, service.url, admin);
    const before = api.length;
    await toggle(page, id);
    const got = await answer(api, '/files/getfile', before);
    expect(got.status, got.body).toBe(200);
    await poll(() => onMap(page, id), { timeout: 15_000 }).toEqual([{ name: 'theirs', coordinates: [-0.25, 0.5] }]);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it.skipIf(!HAS_BUILD)("an undo, then the History tab reads the established server's labels", async () => {
    const { page, api, errors } = await mapPage(browser, service.url, admin);
    const id = await newFile(page, api, uniqueName('history'));
    if (!(await isOn(page, id))) await (await fileElement(page, id, 'drawToolFileSelector')).dispatchEvent('click');
    expect(await addPoint(page, id, 'one', 0.1)).toBe(true);
    expect(await addPoint(page, id, 'two', 0.2)).toBe(true);
    // Undo back to the first add, as the History tab's Undo button sends it.
    const undone = await page.evaluate(
      (id) =>
        new Promise<string>((resolve) => {
          const D = (globalThis as any).ToolController_.getTool('DrawTool');
          D.getHistoryFile(id, (h: { time: number }[]) => {
            const times = h.map((x) => Number(x.time)).sort((a, b) => a - b);
            D.undo(
              { file_id: id, undo_time: times[times.length - 2] },
              () => resolve('ok'),
              () => resolve('undo failed'),
            );
          });
          setTimeout(() => resolve('no answer'), 15_000);
        }),
      id,
    );
    expect(undone).toBe('ok');
    await page.click(".drawToolNavButton[type='history']");
    const labels = () =>
      page.evaluate(() =>
        Array.from((globalThis as any).document.querySelectorAll('#drawToolHistorySequenceList li > div > span:first-child')).map(
          (s: any) => s.innerText,
        ),
      );
    // Newest first, as the established server orders the history; 'Begin' is the client's own last row.
    await poll(labels, { timeout: 15_000 }).toEqual(['Undo', 'Add', 'Add', 'Begin']);
    // Back on the files tab, the file now holds the first point only.
    await page.click(".drawToolNavButton[type='draw']");
    const again = api.length;
    await page.evaluate((id) => (globalThis as any).ToolController_.getTool('DrawTool').toggleFile(id, 'off'), id);
    await toggle(page, id);
    expect((await answer(api, '/files/getfile', again)).status).toBe(200);
    await poll(() => onMap(page, id), { timeout: 15_000 }).toEqual([{ name: 'one', coordinates: [0.1, 0.5] }]);
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
