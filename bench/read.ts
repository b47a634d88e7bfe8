/**
 * `npm run bench:read` — the read-side figures of docs/benchmarks.md on the PostGIS server (DATABASE_URL or the local
 * default), in a fresh database created and dropped here, with the ingest bench's seeded 200,000 points.
 *
 * Each case is measured three ways in the same run:
 * - SQL alone: the query the handler sends, through the driver (the lib function the handler calls);
 * - handler: the Lambda handler invoked in-process with an API Gateway event, in a child process per
 *   invocation (warm: a `limit=1` invocation first), with that process's sampled peak RSS;
 * - HTTP: requests per second through the local service (serverless-offline), for information only.
 * The ratio handler / SQL alone is printed against the case's target. Cases are a list: tile cases add
 * entries to `readCases` (an `event` for the handler and a `sqlAlone` for the reference).
 */
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { handler as getHandler } from '../functions/geodatasets/get.ts';
import { closeDb, createDb, type Db } from '../lib/db/index.ts';
import { type Geodataset, requireDataset } from '../lib/geodatasets/catalog.ts';
import { parseReadFilters, resolveReadFilters } from '../lib/geodatasets/read/filters.ts';
import { parseGeojsonOptions, readFeatureCollection } from '../lib/geodatasets/read/geojson.ts';
import { recreateGeodataset } from '../lib/geodatasets/write/write.ts';
import { prepareDatabase } from '../local/devServer.ts';
import { getInput } from '../tests/fixtures/getInput.ts';
import { runChild as runChildProcess } from './child.ts';
import { CLUSTER, featureCollectionText, points } from './data.ts';
import { startServiceProcess } from './serviceProcess.ts';

const N_POINTS = Number(process.env.BENCH_POINTS) || 200_000;
const LAYER = 'bench_read_points';
const self = fileURLToPath(import.meta.url);

export interface ReadCase {
  name: string;
  /** Query string of `GET /api/geodatasets/get` (the layer is added). */
  params: Record<string, string>;
  /** Request headers for the handler and HTTP measurements (e.g. `If-None-Match`). */
  headers?: Record<string, string>;
  /** The reference: what the handler asks the database, through the driver. */
  sqlAlone: (db: Db, ds: Geodataset) => Promise<unknown>;
  iterations: number;
  target?: { ratio?: number; rssMB?: number };
}

/** The GeoJSON reference: the exact query `get.ts` sends (same lib function, same parameters). */
function geojsonSql(params: Record<string, string>) {
  return async (db: Db, ds: Geodataset) => {
    const f = await resolveReadFilters(db.sql, parseReadFilters(getInput(params)));
    return readFeatureCollection(db.sql, ds, f, parseGeojsonOptions(getInput(params)));
  };
}

function geojsonCase(
  name: string,
  params: Record<string, string>,
  iterations: number,
  target?: ReadCase['target'],
): ReadCase {
  const p = { type: 'geojson', ...params };
  return { name, params: p, sqlAlone: geojsonSql(p), iterations, target };
}

/** The cases; `bbox` is calibrated to hold about 10,000 points of the dense cluster. */
export function readCases(ctx: { bbox: string[] }): ReadCase[] {
  const [minx, miny, maxx, maxy] = ctx.bbox;
  return [
    geojsonCase('GeoJSON bbox ~10,000 points', { minx, miny, maxx, maxy }, 9, { ratio: 1.3 }),
    geojsonCase('GeoJSON whole layer', {}, 5, { ratio: 1.5, rssMB: 300 }),
    geojsonCase(
      'GeoJSON bbox + time window + filter + stats, limit 1000',
      {
        minx,
        miny,
        maxx,
        maxy,
        starttime: '2024-03-01T00:00:00Z',
        endtime: '2024-09-01T00:00:00Z',
        filters: 'n+>+number+100000',
        stats: 'f',
        limit: '1000',
      },
      10,
    ),
    geojsonCase(
      'GeoJSON circle 20 km + noDuplicates',
      { spatialFilter: `${CLUSTER.lat},${CLUSTER.lon},20000`, noDuplicates: 'true' },
      10,
    ),
  ];
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function event(params: Record<string, string>, headers: Record<string, string> = {}) {
  return {
    httpMethod: 'GET',
    path: '/api/geodatasets/get',
    pathParameters: null,
    queryStringParameters: { layer: LAYER, ...params },
    headers,
    body: null,
    isBase64Encoded: false,
    requestContext: { requestId: 'bench' },
  };
}

/**
 * In the child: a warm-up invocation of the same request with `limit=1` (connection pool, token cache, JIT
 * as on a warm Lambda), then the measured invocation; prints its time and the process's peak RSS. One
 * child per measured invocation, so the peak is that of one request, as a Lambda serves them.
 */
async function child(caseJson: string): Promise<void> {
  const c = JSON.parse(caseJson) as { params: Record<string, string>; headers?: Record<string, string> };
  const h = getHandler as unknown as (
    e: unknown,
    ctx: unknown,
  ) => Promise<{ statusCode: number; body: string }>;
  const ctx = { awsRequestId: 'bench' };
  const warm = c.params.type === 'geojson' ? { ...c.params, limit: '1' } : c.params;
  const first = await h(event(warm, c.headers), ctx);
  if (first.statusCode >= 400)
    throw new Error(`handler answered ${first.statusCode}: ${first.body.slice(0, 300)}`);
  // Sampled RSS, not getrusage's maxRSS: on Linux that high-water mark survives exec and would count
  // the forking bench process. Samples run between the handler's awaits; one more is taken at the end,
  // while the response body is still held.
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 2);
  const t0 = performance.now();
  const res = await h(event(c.params, c.headers), ctx);
  const ms = performance.now() - t0;
  clearInterval(timer);
  const maxRssMB = Math.max(peak, process.memoryUsage.rss()) / 1048576;
  await closeDb();
  process.stdout.write(`${JSON.stringify({ ms, maxRssMB, bytes: res.body.length })}\n`);
}

function runChild(c: ReadCase, url: string): Promise<{ ms: number; maxRssMB: number; bytes: number }> {
  return runChildProcess(
    self,
    [JSON.stringify({ params: c.params, headers: c.headers })],
    { DATABASE_URL: url, STATEMENT_TIMEOUT_MS: '600000' },
    `for '${c.name}'`,
  );
}

/** The handler measured `iterations` times (one child each): median time, largest peak RSS. */
async function timeHandler(
  c: ReadCase,
  url: string,
): Promise<{ ms: number; maxRssMB: number; bytes: number }> {
  const runs = [];
  for (let i = 0; i < c.iterations; i++) runs.push(await runChild(c, url));
  return {
    ms: median(runs.map((r) => r.ms)),
    maxRssMB: Math.max(...runs.map((r) => r.maxRssMB)),
    bytes: runs[0].bytes,
  };
}

async function timeSql(c: ReadCase, db: Db, ds: Geodataset): Promise<number> {
  await c.sqlAlone(db, ds);
  const times: number[] = [];
  for (let i = 0; i < c.iterations; i++) {
    const t0 = performance.now();
    await c.sqlAlone(db, ds);
    times.push(performance.now() - t0);
  }
  return median(times);
}

async function httpRate(base: string, c: ReadCase): Promise<number> {
  const qs = new URLSearchParams({ layer: LAYER, ...c.params }).toString();
  const url = `${base}/api/geodatasets/get?${qs}`;
  const init = { headers: c.headers ?? {} };
  await (await fetch(url, init)).arrayBuffer();
  const until = performance.now() + 3000;
  let n = 0;
  const t0 = performance.now();
  while (performance.now() < until || n < 2) {
    const res = await fetch(url, init);
    await res.arrayBuffer();
    if (res.status >= 400) throw new Error(`HTTP ${res.status}`);
    n++;
  }
  return n / ((performance.now() - t0) / 1000);
}

/** Half-width (degrees) of a square around the cluster center holding about `want` points. */
async function calibrateBbox(db: Db, ds: Geodataset, want: number): Promise<string[]> {
  let lo = 0.001;
  let hi = 2;
  let box: number[] = [];
  for (let i = 0; i < 20; i++) {
    const w = (lo + hi) / 2;
    box = [CLUSTER.lon - w, CLUSTER.lat - w, CLUSTER.lon + w, CLUSTER.lat + w].map(
      (v) => Math.round(v * 1e6) / 1e6,
    );
    const [{ n }] = await db.sql`select count(*)::int as n from ${db.sql.unsafe(ds.table)}
      where geom && ST_MakeEnvelope(${box[0]}, ${box[1]}, ${box[2]}, ${box[3]}, 4326)`;
    if (Math.abs(n - want) < want * 0.02) break;
    if (n > want) hi = w;
    else lo = w;
  }
  return box.map(String);
}

async function main() {
  if (process.argv[2] === '--child') return child(process.argv[3]);
  const serverUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  const dbName = `mmgis_bench_read_${Date.now()}_${randomBytes(2).toString('hex')}`;
  await admin.unsafe(`create database ${dbName}`);
  const u = new URL(serverUrl);
  u.pathname = `/${dbName}`;
  const url = u.toString();
  let service: Awaited<ReturnType<typeof startServiceProcess>> | undefined;
  const db = createDb({ url, max: 2, statementTimeoutMs: 600_000 });
  try {
    await prepareDatabase(url, undefined);
    let t0 = performance.now();
    await recreateGeodataset(db, featureCollectionText(points(N_POINTS, 1)), {
      name: LAYER,
      startProp: 't',
      groupIdProp: 'g',
    });
    console.log(
      `data: ${N_POINTS} seeded points loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
    const ds = await requireDataset(db.sql, LAYER);
    const bbox = await calibrateBbox(db, ds, 10_000);
    const cases = readCases({ bbox });
    if (process.env.BENCH_SKIP_HTTP !== '1') {
      service = await startServiceProcess({ databaseUrl: url, env: { AUTH: 'none', LOG_LEVEL: 'warn' } });
    }
    console.log(
      '\ncase | SQL alone ms | handler ms | ratio (target) | handler peak RSS MB | body MB | HTTP req/s',
    );
    for (const c of cases) {
      const sqlMs = await timeSql(c, db, ds);
      const h = await timeHandler(c, url);
      t0 = performance.now();
      const rate = service ? await httpRate(service.url, c) : Number.NaN;
      const ratio = h.ms / sqlMs;
      const target = c.target?.ratio
        ? ` (<= ${c.target.ratio} ${ratio <= c.target.ratio ? 'ok' : 'MISSED'})`
        : '';
      const rss = `${h.maxRssMB.toFixed(0)}${c.target?.rssMB ? ` (<= ${c.target.rssMB} ${h.maxRssMB <= c.target.rssMB ? 'ok' : 'MISSED'})` : ''}`;
      console.log(
        `${c.name} | ${sqlMs.toFixed(1)} | ${h.ms.toFixed(1)} | ${ratio.toFixed(2)}${target} | ${rss} | ${(h.bytes / 1048576).toFixed(2)} | ${rate.toFixed(1)}`,
      );
    }
  } finally {
    await service?.stop();
    await db.end();
    await admin.unsafe(`drop database if exists ${dbName} with (force)`).catch(() => {});
    await admin.end();
  }
}

await main();
