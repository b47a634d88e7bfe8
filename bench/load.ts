/**
 * `npm run bench:load [-- --duration=SECONDS --db=server|embedded|both --points=N]`: the service under a
 * map's load (docs/connections.md). Starts the service with `startService` (the code `npm start` runs) in a
 * process of its own, as `npm start` does (bench/serviceProcess.ts), on a fresh database (a new database on the `DATABASE_URL` server, or a throwaway embedded one), seeds
 * 200,000 points, then for `--duration` seconds (default 180) runs over real HTTP:
 *   - map-view bursts: 32 concurrent tiles of z10–z14 around the dense cluster, different tiles each burst;
 *   - GeoJSON bbox reads (plain, with `stats`, with `filters` + `stats`) by two clients;
 *   - configure `get`; an append of 1,000 features every 3 s; an `addLayer` every 10 s.
 * Then prints per route requests, throughput, p50/p95/p99 and errors by status, the peak database
 * connections and service RSS, whether every appended feature reads back, and the z12 tile throughput at
 * 8 clients through the service against the same tile SQL alone at 8 clients, for three tiles: the
 * densest, a typical one (≤ 64 KB) and a light one (≤ 8 KB), for a map view's 40 tiles, and the service's
 * floor (an answer without database work at 8 clients), which bounds every tile's ratio.
 */
import { createDb, type Db } from '../lib/db/index.ts';
import { recreateGeodataset } from '../lib/geodatasets/write/write.ts';
import { CLUSTER, featureCollectionText, points, random } from './data.ts';
import { groupRss, peakSampler, RouteStats, table, timedRequest, treeRss } from './loadMetrics.ts';
import { adminToken, embeddedTarget, post, serverTarget, type Target } from './loadTargets.ts';
import { burstSqlAlone, floorRate, z12Ratio, z12ViewRatio } from './loadTiles.ts';
import { tileAt } from './readTiles.ts';

const arg = (name: string, fallback: string) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback;

const LAYER = 'load_points';
/** The corner of the half-degree box (inside the dense cluster) where appended features go. */
const APPENDED = { lon: CLUSTER.lon - 0.25, lat: CLUSTER.lat - 0.25 };
const MISSION = 'LoadBench';

let auth: Record<string, string> = {};

async function seed(t: Target, count: number): Promise<{ db: Db }> {
  auth = { authorization: `Bearer ${await adminToken(t.svc.url)}` };
  const db = createDb({ url: t.svc.databaseUrl, max: 2, statementTimeoutMs: 600_000 });
  await recreateGeodataset(db, featureCollectionText(points(count, 1)), {
    name: LAYER,
    startProp: 't',
    groupIdProp: 'g',
  });
  const res = await post(`${t.svc.url}/api/configure/add`, { mission: MISSION }, auth);
  if (res.status >= 300) throw new Error(`configure add: ${res.status} ${await res.text()}`);
  return { db };
}

/** The 32 tiles of burst `k`: a 4×8 window near the cluster at zoom 10–14, moved every burst. */
function burstTiles(k: number): { z: number; x: number; y: number }[] {
  const z = 10 + (k % 5);
  const c = tileAt(CLUSTER.lon, CLUSTER.lat, z);
  const shift = Math.floor(k / 5);
  const dx = (shift % 5) - 2;
  const dy = (Math.floor(shift / 5) % 3) - 1;
  const out = [];
  for (let i = 0; i < 32; i++)
    out.push({ z, x: c.x - 4 + (i % 8) + dx, y: c.y - 2 + Math.floor(i / 8) + dy });
  return out;
}

async function mix(t: Target, seconds: number) {
  const base = t.svc.url;
  const routes = {
    tile: new RouteStats('tile z10–z14 (32-request bursts)'),
    bbox: new RouteStats('GeoJSON bbox'),
    stats: new RouteStats('GeoJSON bbox + stats'),
    filters: new RouteStats('GeoJSON bbox + filters + stats'),
    configure: new RouteStats('configure get'),
    append: new RouteStats('append 1,000 features'),
    addLayer: new RouteStats('configure addLayer'),
  };
  const until = performance.now() + seconds * 1000;
  const running = () => performance.now() < until;
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const r = random(7);
  const appended: number[] = [];
  const byZoom = new Map<number, RouteStats>();

  const tiles = async () => {
    for (let k = 0; running(); k++) {
      await Promise.all(
        burstTiles(k).map(async ({ z, x, y }) => {
          const t0 = performance.now();
          const res = await timedRequest(
            routes.tile,
            `${base}/api/geodatasets/get?layer=${LAYER}&type=mvt&z=${z}&x=${x}&y=${y}`,
          );
          if (!byZoom.has(z)) byZoom.set(z, new RouteStats(`z${z}`));
          byZoom.get(z)?.add(performance.now() - t0, res?.status ?? 'ERR');
        }),
      );
      await pause(100);
    }
  };
  const geojson = async () => {
    for (let k = 0; running(); k++) {
      const w = 0.02 + r() * 0.08;
      const cx = CLUSTER.lon + (r() - 0.5);
      const cy = CLUSTER.lat + (r() - 0.5);
      const box = `minx=${cx - w}&miny=${cy - w}&maxx=${cx + w}&maxy=${cy + w}`;
      const q = `${base}/api/geodatasets/get?layer=${LAYER}&type=geojson&${box}`;
      if (k % 3 === 0) await timedRequest(routes.bbox, q);
      else if (k % 3 === 1) await timedRequest(routes.stats, `${q}&stats=f,n`);
      else await timedRequest(routes.filters, `${q}&filters=n+>+number+500000&stats=f&limit=1000`);
    }
  };
  const configure = async () => {
    while (running()) {
      await timedRequest(routes.configure, `${base}/api/configure/get?mission=${MISSION}`);
      await pause(50);
    }
  };
  const appends = async () => {
    for (let batch = 0; running(); batch++) {
      // In the cluster's half-degree box (tiles see them) and in APPENDED's box (read back by bbox).
      const feats = [...points(1000, 1000 + batch)].map((f, i) => ({
        ...f,
        geometry: {
          type: 'Point',
          coordinates: [APPENDED.lon + (i % 50) / 100, APPENDED.lat + Math.floor(i / 50) / 40],
        },
        properties: { ...f.properties, lb: batch, li: i },
      }));
      const res = await timedRequest(routes.append, `${base}/api/geodatasets/append/${LAYER}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...auth },
        body: JSON.stringify({ type: 'FeatureCollection', features: feats }),
      });
      if (res && res.status < 300) appended.push(batch);
      await pause(3000);
    }
  };
  const addLayers = async () => {
    for (let k = 0; running(); k++) {
      await timedRequest(routes.addLayer, `${base}/api/configure/addLayer`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...auth },
        body: JSON.stringify({
          mission: MISSION,
          layer: { name: `L${k}`, type: 'vector', url: `geodatasets:${LAYER}` },
        }),
      });
      await pause(10_000);
    }
  };
  await Promise.all([tiles(), geojson(), geojson(), configure(), appends(), addLayers()]);
  return { routes: Object.values(routes), appended, byZoom };
}

/** Every feature of every successful append batch reads back through the API (by its `lb` property). */
async function lostWrites(t: Target, batches: number[]): Promise<number> {
  const box = `minx=${APPENDED.lon}&miny=${APPENDED.lat}&maxx=${APPENDED.lon + 0.5}&maxy=${APPENDED.lat + 0.5}`;
  const res = await fetch(`${t.svc.url}/api/geodatasets/get?layer=${LAYER}&type=geojson&${box}`);
  const text = await res.text();
  if (res.status !== 200) {
    console.log(`read-back: HTTP ${res.status} ${text.slice(0, 200)}`);
    return batches.length * 1000;
  }
  const fc = JSON.parse(text) as { features?: { properties?: { lb?: number; li?: number } }[] };
  const seen = new Set((fc.features ?? []).map((f) => `${f.properties?.lb}/${f.properties?.li}`));
  let lost = 0;
  for (const b of batches) for (let i = 0; i < 1000; i++) if (!seen.has(`${b}/${i}`)) lost++;
  return lost;
}

/** Waits (at most 120 s) until the service holds no more than its idle connections' worth of busy work. */
async function quiesce(t: Target) {
  const until = Date.now() + 120_000;
  while (Date.now() < until && (await t.active())) await new Promise((r) => setTimeout(r, 500));
}

async function run(t: Target, seconds: number, count: number) {
  const { db } = await seed(t, count);
  await db.end();
  // Warm-up (not measured): the first burst starts a worker per concurrent request (Lambda cold starts).
  const cold = new RouteStats('warm-up');
  const w0 = performance.now();
  await Promise.all(
    burstTiles(2).map(({ z, x, y }) =>
      timedRequest(cold, `${t.svc.url}/api/geodatasets/get?layer=${LAYER}&type=mvt&z=${z}&x=${x}&y=${y}`),
    ),
  );
  const coldMs = performance.now() - w0;
  const conns = peakSampler(t.connections);
  const pgid = t.svc.pid();
  const rss = peakSampler(() => (pgid ? groupRss(pgid) : 0), 500);
  // Everything the service holds, as `npm start`'s processes: its own process (the embedded database, the
  // supervision) and serverless-offline's group below it.
  const wholeRss = peakSampler(() => treeRss(t.svc.processPid), 500);
  const { routes, appended, byZoom } = await mix(t, seconds);
  const peakConnections = await conns.stop();
  const peakRss = await rss.stop();
  const peakWholeRss = await wholeRss.stop();
  console.log(`\n## ${t.label}: ${count} points, ${seconds} s mix\n`);
  console.log(table(routes, seconds));
  // serverless-offline answers 504 at 29 s but its worker finishes the request: let such leftovers end.
  await quiesce(t);
  console.log(
    `\nWarm-up (cold start of 32 workers, not counted above): ${(coldMs / 1000).toFixed(1)} s, statuses ${[...cold.statuses].map(([k, n]) => `${k}×${n}`).join(' ')}`,
  );
  const lost = await lostWrites(t, appended);
  const total5xx = routes.reduce((s, r) => s + r.count5xx(), 0);
  const errorLines = t.svc.logLines().filter((l) => /"level":"error"|\bError\b/.test(l));
  for (const l of errorLines.slice(0, 5)) console.log(`service log: ${l.slice(0, 300)}`);
  const z12 = await z12Ratio(t, LAYER, Math.max(5, Math.min(15, seconds / 6)));
  const view = await z12ViewRatio(t, LAYER, Math.max(5, Math.min(15, seconds / 6)));
  const floor = await floorRate(t, Math.max(5, Math.min(15, seconds / 6)));
  const tileRoute = routes[0];
  const burstsSql = await burstSqlAlone(
    t,
    LAYER,
    Math.min(30, Math.max(5, Math.ceil(tileRoute.ms.length / 32))),
    burstTiles,
  );
  console.log(`
- 5xx (and failed requests): ${total5xx} (target 0)
- appended batches: ${appended.length} × 1,000 features; lost (not readable at the end): ${lost} (target 0)
- peak database connections (sampled every 250 ms): ${peakConnections} (target ≤ 20 on the server)
- peak RSS summed over all the service's processes (as npm start's: its own process with the embedded database, and serverless-offline's group): ${(peakWholeRss / 1048576).toFixed(0)} MB (target ≤ 1,024 MB); of which serverless-offline's process group: ${(peakRss / 1048576).toFixed(0)} MB
- error lines in the service log: ${errorLines.length}`);
  for (const r of z12) {
    console.log(
      `- z12 ${r.label} tile ${r.tile.z}/${r.tile.x}/${r.tile.y} (${r.bytes} bytes) at 8 clients: ${r.service.toFixed(1)} tiles/s through the service, ${r.sqlAlone.toFixed(1)} tiles/s SQL alone, ratio ${(r.service / r.sqlAlone).toFixed(2)} (target ≥ 0.6 of SQL alone); at 32 clients through the service p50 / p99 ${r.at32.percentile(50).toFixed(0)} / ${r.at32.percentile(99).toFixed(0)} ms (target p99 ≤ 500 ms); non-200 answers: ${r.failed.length ? r.failed.join(', ') : 'none'}`,
    );
  }
  console.log(
    `- z12 map view (the 40 tiles of a 1920×1080 view, each client through all of them) at 8 clients: ${view.service.toFixed(1)} tiles/s through the service, ${view.sqlAlone.toFixed(1)} tiles/s SQL alone, ratio ${(view.service / view.sqlAlone).toFixed(2)}; non-2xx answers: ${view.failed.length ? view.failed.join(', ') : 'none'} (target ≥ 0.6)`,
  );
  console.log(
    `- tile bursts (32 requests of z10–z14 at once): p50 / p99 ${tileRoute.percentile(50).toFixed(0)} / ${tileRoute.percentile(99).toFixed(0)} ms through the service beside the mix (target p99 ≤ 500 ms); the same bursts SQL alone through a pool of 10, nothing else running: p50 / p99 ${burstsSql.percentile(50).toFixed(0)} / ${burstsSql.percentile(99).toFixed(0)} ms`,
  );
  const zooms = [...byZoom.keys()].sort((a, b) => a - b).map((z) => byZoom.get(z) as RouteStats);
  console.log(
    `  - by zoom, p50 / p99 ms: ${zooms.map((s) => `${s.name} ${s.percentile(50).toFixed(0)} / ${s.percentile(99).toFixed(0)}`).join(', ')}`,
  );
  // Two bounds on each tile's ratio from the floor F and the tile's SQL alone S: if the service and the
  // database had CPUs of their own, the slower of the two sets the pace (min(1, F / S)); on one machine's
  // shared cores, each tile costs the CPU of an answer plus the CPU of its SQL (F / (F + S)).
  const ceilings = z12
    .map((r) => {
      const own = Math.min(1, floor / r.sqlAlone);
      const shared = floor / (floor + r.sqlAlone);
      return `${r.label} ${own.toFixed(2)} / ${shared.toFixed(2)}`;
    })
    .join(', ');
  console.log(
    `- the service's floor: ${floor.toFixed(1)} answers/s at 8 clients for a request without database work (GET /api/ogc/conformance); the highest ratio a tile can reach through it, if the service and the database had CPUs of their own / sharing this machine's cores: ${ceilings}`,
  );
}

async function main() {
  const seconds = Number(arg('duration', '180'));
  const which = arg('db', 'both');
  const count = Number(arg('points', '200000'));
  const serverUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  for (const kind of ['server', 'embedded']) {
    if (which !== 'both' && which !== kind) continue;
    const t = kind === 'server' ? await serverTarget(serverUrl) : await embeddedTarget();
    const interrupted = async () => {
      await t.cleanup();
      process.exit(130);
    };
    process.once('SIGINT', interrupted);
    process.once('SIGTERM', interrupted);
    try {
      await run(t, seconds, count);
    } finally {
      process.removeListener('SIGINT', interrupted);
      process.removeListener('SIGTERM', interrupted);
      await t.cleanup();
    }
  }
}

if (process.argv[1]?.endsWith('load.js') || process.argv[1]?.endsWith('load.ts')) await main();
