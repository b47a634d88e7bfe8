/**
 * `npm run bench:web` — the web pages' weights and the map's time to first tile, in Debian's Chromium
 * (playwright-core), against the local service on a fresh database (the PostGIS server of DATABASE_URL or
 * the local default), with a mission drawing 2,000 polygons as vector tiles. Per page it prints the bytes
 * transferred on a first load (empty cache) and on a second visit (warm cache), split into the page's own
 * files and API/tile answers, and the gzip size of the page's files (what a compressing gateway sends).
 * The time to first tile is the viewer's `mmgis:first-tile` mark (navigation start to the first tile drawn).
 */

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { createFreshDatabase } from '../tests/setup/freshDatabase.ts';
import { startServiceProcess } from './serviceProcess.ts';

const SERVER = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--use-angle=swiftshader',
  '--enable-unsafe-swiftshader',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];
const RUNS = Number(process.env.BENCH_WEB_RUNS) || 3;
const root = fileURLToPath(new URL('../..', import.meta.url));
// Loaded at run time: playwright-core is not bundled.
const { chromium } = createRequire(import.meta.url)('playwright-core');

function polygons(n: number) {
  const features = [];
  for (let i = 0; i < n; i++) {
    const x = -20 + (i % 50) * 0.8;
    const y = -20 + Math.floor(i / 50) * 0.8;
    features.push({
      type: 'Feature',
      properties: { i, name: `cell ${i}` },
      geometry: {
        type: 'Polygon',
        coordinates: [
          [
            [x, y],
            [x + 0.6, y],
            [x + 0.6, y + 0.6],
            [x, y + 0.6],
            [x, y],
          ],
        ],
      },
    });
  }
  return { type: 'FeatureCollection', features };
}

interface Load {
  own: number;
  api: number;
  requests: number;
  cached: number;
  firstTileMs: number | null;
}

/**
 * Loads `url` in `page` and sums the bytes received per request (headers and encoded body, as Chromium
 * counts them; a cache hit counts its headers only), the MapLibre worker's tile requests included.
 */
async function measure(page: any, url: string, waitTile: boolean): Promise<Load> {
  const load: Load = { own: 0, api: 0, requests: 0, cached: 0, firstTileMs: null };
  const pending: Promise<void>[] = [];
  const onFinished = (req: any) =>
    pending.push(
      (async () => {
        const sizes = await req.sizes();
        const bytes = sizes.responseBodySize + sizes.responseHeadersSize;
        load.requests++;
        if (sizes.responseBodySize === 0 && (await req.response())?.status() === 200) load.cached++;
        if (new URL(req.url()).pathname.startsWith('/api/')) load.api += bytes;
        else load.own += bytes;
      })(),
    );
  page.context().on('requestfinished', onFinished);
  await page.goto(url, { waitUntil: 'load' });
  if (waitTile) {
    await page.waitForFunction(() => performance.getEntriesByName('mmgis:first-tile').length > 0, null, {
      timeout: 60_000,
    });
    load.firstTileMs = await page.evaluate(
      () => performance.getEntriesByName('mmgis:first-tile')[0].startTime,
    );
  }
  await page.waitForLoadState('networkidle');
  await new Promise((r) => setTimeout(r, 500));
  page.context().off('requestfinished', onFinished);
  await Promise.all(pending);
  return load;
}

function gzipOfPage(page: 'index' | 'configure'): { raw: number; gzip: number } {
  const dir = join(root, 'dist/web');
  const html = readFileSync(join(dir, `${page}.html`), 'utf8');
  const files = [...html.matchAll(/\/assets\/([^"]+)/g)].map((m) => m[1]);
  if (page === 'index') {
    const js = readFileSync(join(dir, 'assets', files.find((f) => f.endsWith('.js'))!), 'utf8');
    files.push(/maplibre-gl-worker-[0-9a-f]{10}\.mjs/.exec(js)![0]);
  }
  let raw = Buffer.byteLength(html);
  let gzip = gzipSync(html).length;
  for (const f of new Set(files)) {
    const buf = readFileSync(join(dir, 'assets', f));
    raw += buf.length;
    gzip += gzipSync(buf, { level: 6 }).length;
  }
  return { raw, gzip };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const kb = (n: number) => `${(n / 1024).toFixed(1)} KiB`;

const fresh = await createFreshDatabase(SERVER);
const svc = await startServiceProcess({ databaseUrl: fresh.url, env: { LOG_LEVEL: 'warn', AUTH: 'none' } });
const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
try {
  const admin = { username: 'bench', password: 'bench password 1' };
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${svc.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  await post('/api/users/first_signup', admin);
  const cookie = (await post('/api/users/login', admin)).headers.get('set-cookie')!.split(';')[0];
  const token = (
    (await (await post('/api/longtermtoken/generate', { name: 'bench' }, { cookie })).json()) as any
  ).body.token;
  const auth = { authorization: `Bearer ${token}` };
  await post('/api/geodatasets/recreate', { name: 'cells', geojson: polygons(2000) }, auth);
  const layers = [{ name: 'Cells', type: 'vectortile', url: 'geodatasets:cells', visibility: true }];
  await post(
    '/api/configure/upsert',
    { mission: 'Bench', config: { msv: { view: [0, 0, 3] }, tools: [], layers } },
    auth,
  );

  const viewer = `${svc.url}/?mission=Bench`;
  const results: Record<string, { first: Load[]; warm: Load[] }> = {
    viewer: { first: [], warm: [] },
    configure: { first: [], warm: [] },
  };
  for (let i = 0; i < RUNS; i++) {
    const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    const page = await context.newPage();
    results.viewer.first.push(await measure(page, viewer, true));
    results.viewer.warm.push(await measure(page, viewer, true));
    await context.addCookies([{ name: cookie.split('=')[0], value: cookie.split('=')[1], url: svc.url }]);
    results.configure.first.push(await measure(page, `${svc.url}/configure/missions`, false));
    results.configure.warm.push(await measure(page, `${svc.url}/configure/missions`, false));
    await context.close();
  }
  console.log(
    `web pages (${RUNS} runs, medians; serverless-offline gzips the answers; the worker script, loaded by the worker, is not in the page files)`,
  );
  for (const [name, r] of Object.entries(results)) {
    const z = gzipOfPage(name === 'viewer' ? 'index' : 'configure');
    for (const kind of ['first', 'warm'] as const) {
      const l = r[kind];
      console.log(
        `${name.padEnd(9)} ${kind === 'first' ? 'first load' : 'warm cache'}: page files ${kb(median(l.map((x) => x.own)))}, ` +
          `API and tiles ${kb(median(l.map((x) => x.api)))}, requests ${median(l.map((x) => x.requests))} ` +
          `(${median(l.map((x) => x.cached))} from cache)` +
          (name === 'viewer'
            ? `, first tile ${median(l.map((x) => x.firstTileMs ?? Number.NaN)).toFixed(0)} ms`
            : ''),
      );
    }
    console.log(`${name.padEnd(9)} page files on disk: ${kb(z.raw)}, gzip -6: ${kb(z.gzip)}`);
  }
} finally {
  await browser.close();
  await svc.stop();
  await fresh.drop();
}
