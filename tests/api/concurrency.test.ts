import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type RunningService, startService } from '../../local/devServer.ts';
import { decodeTile, rng, tilePixel } from '../fixtures/tiles.ts';
import { adminToken, uniqueName } from '../helpers.ts';

// 64 concurrent mixed requests in bursts for ~15 s against a service started by `startService`, the code
// `npm start` runs (docs/connections.md). Not timed: it fails on a 5xx, a wrong answer or an error line in
// the service's log.

const BURST = 64;
const SECONDS = 15;
const read = uniqueName('conc_read');
const written = uniqueName('conc_write');
const mission = uniqueName('Conc');
const r = rng(99);
// 1,000 points: every tile below holds fewer than the feature budget (TILE_MAX_FEATURES, 1,024 by default), so
// each answer is exact, not thinned.
const pts = Array.from({ length: 1000 }, () => [
  Math.round((10 + r()) * 1e6) / 1e6,
  Math.round((45 + r()) * 1e6) / 1e6,
]);
const fc = (coords: number[][], props: (i: number) => Record<string, unknown>) => ({
  type: 'FeatureCollection',
  features: coords.map((c, i) => ({
    type: 'Feature',
    geometry: { type: 'Point', coordinates: c },
    properties: props(i),
  })),
});

let svc: RunningService;
const auth = () => ({ authorization: `Bearer ${adminToken()}`, 'content-type': 'application/json' });

interface Outcome {
  what: string;
  status: number;
  problem?: string;
}

beforeAll(async () => {
  svc = await startService({
    databaseUrl: inject('databaseUrl'),
    env: { AUTH: 'none', LOG_LEVEL: 'warn', DB_APPLICATION_NAME: APPLICATION },
  });
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${svc.url}${path}`, {
      method: 'POST',
      headers: auth(),
      body: JSON.stringify(body),
    });
    expect(res.status, await res.text()).toBeLessThan(300);
  };
  await post('/api/geodatasets/recreate', { name: read, geojson: fc(pts, (i) => ({ n: i })) });
  await post('/api/geodatasets/recreate', { name: written, geojson: fc([[0, 0]], () => ({ k: -1 })) });
  await post('/api/configure/add', { mission });
});

afterAll(async () => {
  await svc?.stop();
});

function tileRequest(k: number): () => Promise<Outcome> {
  const z = 8 + (k % 3);
  const n = 2 ** z;
  const x = Math.floor(((10 + (k % 7) / 7 + 180) / 360) * n);
  const lat = 45 + ((k * 3) % 7) / 7;
  const rad = (lat * Math.PI) / 180;
  const y = Math.floor(((1 - Math.log(Math.tan(rad) + 1 / Math.cos(rad)) / Math.PI) / 2) * n);
  return async () => {
    const res = await fetch(`${svc.url}/api/geodatasets/get?layer=${read}&type=mvt&z=${z}&x=${x}&y=${y}`);
    const buf = new Uint8Array(await res.arrayBuffer());
    const out: Outcome = { what: `tile ${z}/${x}/${y}`, status: res.status };
    if (res.status !== 200 && res.status !== 204) return { ...out, problem: `status ${res.status}` };
    // Inside the tile proper at least, inside the tile plus its 64-pixel buffer at most.
    const px = pts.map(([lon, lat]) => tilePixel(lon, lat, z, x, y));
    const inner = px.filter(([a, b]) => a >= 0 && a < 4096 && b >= 0 && b < 4096).length;
    const outer = px.filter(([a, b]) => a >= -64 && a <= 4160 && b >= -64 && b <= 4160).length;
    const got = buf.length === 0 ? 0 : (decodeTile(buf)[read]?.features.length ?? 0);
    if (got < inner || got > outer)
      return { ...out, problem: `${got} features, expected ${inner}..${outer}` };
    return out;
  };
}

function bboxRequest(k: number): () => Promise<Outcome> {
  const w = 0.05 + (k % 5) * 0.04;
  const [minx, miny] = [10 + (k % 11) / 14, 45 + (k % 13) / 17];
  const [maxx, maxy] = [minx + w, miny + w];
  const extra = k % 2 ? '&stats=n' : '&filters=n+>+number+499';
  const want = pts.filter(
    ([lon, lat], i) => lon >= minx && lon <= maxx && lat >= miny && lat <= maxy && (k % 2 === 1 || i >= 500),
  ).length;
  return async () => {
    const res = await fetch(
      `${svc.url}/api/geodatasets/get?layer=${read}&type=geojson&minx=${minx}&miny=${miny}&maxx=${maxx}&maxy=${maxy}${extra}`,
    );
    const text = await res.text();
    const out: Outcome = { what: `bbox ${k}`, status: res.status };
    if (res.status !== 200) return { ...out, problem: text.slice(0, 200) };
    const got = (JSON.parse(text).features ?? []).length;
    return got === want ? out : { ...out, problem: `${got} features, expected ${want}` };
  };
}

const appended: number[] = [];
function appendRequest(k: number): () => Promise<Outcome> {
  return async () => {
    const coords = Array.from({ length: 20 }, (_, i) => [k / 1000, i / 100]);
    const res = await fetch(`${svc.url}/api/geodatasets/append/${written}`, {
      method: 'POST',
      headers: auth(),
      body: JSON.stringify(fc(coords, (i) => ({ k, i }))),
    });
    const text = await res.text();
    if (res.status === 200) appended.push(k);
    return { what: `append ${k}`, status: res.status, problem: res.status === 200 ? undefined : text };
  };
}

function configureRequest(): () => Promise<Outcome> {
  return async () => {
    const res = await fetch(`${svc.url}/api/configure/get?mission=${mission}`);
    const body = await res.text();
    const ok = res.status === 200 && typeof JSON.parse(body) === 'object';
    return { what: 'configure get', status: res.status, problem: ok ? undefined : body.slice(0, 200) };
  };
}

/** This service's connections are told apart from the shared test services' by their application name. */
const APPLICATION = 'mmgis-concurrency-test';
const onServer = () => !inject('embedded') && process.env.DB_DRIVER !== 'data-api';

/** Samples this service's server connections every 50 ms until stopped; `peak()` is the most seen. */
function peakConnections() {
  const admin = postgres(inject('databaseUrl'), { max: 1, onnotice: () => {} });
  let peak = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const [row] = await admin`
        select count(*)::int as n from pg_stat_activity where application_name = ${APPLICATION}`;
      peak = Math.max(peak, row.n);
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  return {
    peak: () => peak,
    async stop() {
      running = false;
      await loop;
      await admin.end();
    },
  };
}

describe('the service under 64 concurrent mixed requests (started as npm start starts it)', () => {
  it('answers every request correctly, without a 5xx or an error in its log', {
    timeout: 240_000,
  }, async () => {
    const outcomes: Outcome[] = [];
    const connections = onServer() ? peakConnections() : null;
    const until = Date.now() + SECONDS * 1000;
    let k = 0;
    // The first bursts ramp up (8, 16, 32, then 64): serverless-offline starts a worker per concurrent request
    // and counts its start-up against the 29 s timeout (Lambda does not count its init phase), so a cold
    // 64-request burst on a loaded 2-core machine measures the emulator, not the service.
    for (let b = 0; Date.now() < until || b < 4; b++) {
      const size = Math.min(BURST, 8 * 2 ** b);
      const burst: (() => Promise<Outcome>)[] = [];
      for (let i = 0; i < size; i++, k++) {
        const kind = i % 8;
        if (kind < 3) burst.push(tileRequest(k));
        else if (kind < 6) burst.push(bboxRequest(k));
        else if (kind === 6) burst.push(configureRequest());
        else burst.push(i % 16 === 7 ? appendRequest(k) : configureRequest());
      }
      outcomes.push(...(await Promise.all(burst.map((f) => f()))));
    }
    const bad = outcomes.filter((o) => o.problem || o.status >= 500);
    expect(bad.slice(0, 5), `${bad.length} of ${outcomes.length} requests failed`).toEqual([]);

    // Every append reads back.
    const res = await fetch(`${svc.url}/api/geodatasets/get?layer=${written}&type=geojson`);
    const { features } = (await res.json()) as { features: { properties: { k: number; i: number } }[] };
    expect(features.length).toBe(1 + 20 * appended.length);
    const keys = new Set(features.map((f) => `${f.properties.k}/${f.properties.i}`));
    for (const k of appended) for (let i = 0; i < 20; i++) expect(keys.has(`${k}/${i}`)).toBe(true);

    // On a PostgreSQL server every function of the service shares one pool per process
    // (docs/connections.md#one-process): 64 requests at once hold at most DB_POOL_MAX (10) connections.
    if (connections) {
      await connections.stop();
      expect(connections.peak()).toBeGreaterThan(0);
      expect(connections.peak()).toBeLessThanOrEqual(10);
    }

    const errors = svc.logLines().filter((l) => /"level":"error"|Error:|Unhandled/.test(l));
    expect(errors.slice(0, 5)).toEqual([]);
  });
});
