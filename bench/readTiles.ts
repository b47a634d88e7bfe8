/**
 * Vector tile cases of the read bench (docs/benchmarks.md): a z12 tile over the dense cluster, z0 over the whole
 * 200,000-point layer, and a 304 revalidation. `tileReadCases` gives them in the shape of `bench/read.ts`'s
 * `ReadCase` (plus `headers`, `expectStatus` and absolute targets); run alone,
 * `node dist/bench/readTiles.js` (after `npm run build`) loads the same seeded data into a fresh database
 * and prints SQL alone (the lib call the handler makes: `readTile`), handler in-process, ratio and HTTP rate.
 */
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { handler as getHandler } from '../functions/geodatasets/get.ts';
import { closeDb, createDb, type Db } from '../lib/db/index.ts';
import { type Geodataset, requireDataset } from '../lib/geodatasets/catalog.ts';
import { parseReadFilters, resolveReadFilters, sqlWhere } from '../lib/geodatasets/read/filters.ts';
import { parseTileAddress } from '../lib/geodatasets/read/tileParams.ts';
import { readTile } from '../lib/geodatasets/tiles/readTile.ts';
import { tileEtag } from '../lib/geodatasets/tiles/tileCache.ts';
import { recreateGeodataset } from '../lib/geodatasets/write/write.ts';
import { prepareDatabase } from '../local/devServer.ts';
import { getInput } from '../tests/fixtures/getInput.ts';
import { CLUSTER, featureCollectionText, points } from './data.ts';
import { startServiceProcess } from './serviceProcess.ts';

export interface TileReadCase {
  name: string;
  /** Query string of `GET /api/geodatasets/get` (the layer is added). */
  params: Record<string, string>;
  /** Request headers of the handler event (If-None-Match for the 304 case). */
  headers?: Record<string, string>;
  /** The status the handler must answer (200 unless said). */
  expectStatus?: number;
  /** The reference: the tile the handler builds, through the same lib call (for 304: generating it). */
  sqlAlone: (db: Db, ds: Geodataset) => Promise<unknown>;
  iterations: number;
  /** ratio = handler ms / SQL-alone ms; maxMs and maxBytes are absolute limits on the handler. */
  target?: { ratio?: number; rssMB?: number; maxMs?: number; maxBytes?: number };
}

/** The XYZ tile holding lon/lat at zoom z. */
export function tileAt(lon: number, lat: number, z: number): { z: number; x: number; y: number } {
  const n = 2 ** z;
  const r = (lat * Math.PI) / 180;
  const x = Math.floor(((lon + 180) / 360) * n);
  const y = Math.floor(((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * n);
  return { z, x, y };
}

function tileParams(t: { z: number; x: number; y: number }): Record<string, string> {
  return { type: 'mvt', z: String(t.z), x: String(t.x), y: String(t.y) };
}

/** What `tileResponse` runs for these parameters after the ETag check: filters, then `readTile`. */
export function tileSql(params: Record<string, string>) {
  return async (db: Db, ds: Geodataset) => {
    const f = await resolveReadFilters(db.sql, parseReadFilters(getInput(params)));
    return readTile(db, ds, parseTileAddress(getInput(params)), sqlWhere(db.sql, ds, f, 't'));
  };
}

/**
 * The tile cases. Targets (docs/benchmarks.md): the z12 tile at ≥ 0.8× the SQL-alone throughput (ratio ≤ 1.25);
 * z0 over 200,000 points ≤ 300 ms and ≤ 1 MB; a 304 ≥ 10× faster than generating the tile (ratio ≤ 0.1)
 * and touching no dataset table (check with `datasetTableReads` before and after).
 */
export function tileReadCases(ctx: { ds: Geodataset }): TileReadCase[] {
  const z12 = tileParams(tileAt(CLUSTER.lon, CLUSTER.lat, 12));
  const z0 = tileParams({ z: 0, x: 0, y: 0 });
  const z10 = tileParams(tileAt(CLUSTER.lon, CLUSTER.lat, 10));
  return [
    {
      name: 'MVT z12 tile over the dense cluster',
      params: z12,
      sqlAlone: tileSql(z12),
      iterations: 30,
      target: { ratio: 1.25 },
    },
    {
      // Thinned to the feature cap and still over the byte budget: the size guard's estimate (docs/tiles.md).
      name: 'MVT z10 tile over the dense cluster (thinned, sized to the byte budget)',
      params: z10,
      sqlAlone: tileSql(z10),
      iterations: 10,
      target: { ratio: 1.25, maxBytes: 1_000_000 },
    },
    {
      name: 'MVT z0 over the whole layer',
      params: z0,
      sqlAlone: tileSql(z0),
      iterations: 5,
      target: { maxMs: 300, maxBytes: 1_000_000 },
    },
    {
      name: 'MVT z12 revalidation (If-None-Match → 304)',
      params: z12,
      headers: { 'If-None-Match': tileEtag(ctx.ds, z12) },
      expectStatus: 304,
      sqlAlone: tileSql(z12),
      iterations: 30,
      target: { ratio: 0.1 },
    },
  ];
}

/** How long PostgreSQL may keep a backend's table statistics before flushing them (an idle backend's 10 s). */
const STATS_FLUSH_MS = 11_000;

/** Scans and index fetches of the dataset's table so far (pg_stat; flushed by PostgreSQL within `STATS_FLUSH_MS`). */
export async function datasetTableReads(db: Db, ds: Geodataset): Promise<number> {
  const [row] = await db.sql`select coalesce(seq_scan, 0) + coalesce(idx_scan, 0) as n
    from pg_stat_user_tables where relname = ${ds.table}`;
  return Number(row?.n ?? 0);
}

/** An API Gateway (REST, v1) event of `GET /api/geodatasets/get` for the handler invoked in-process. */
export function tileEvent(
  layer: string,
  params: Record<string, string>,
  headers: Record<string, string> = {},
) {
  return {
    httpMethod: 'GET',
    path: '/api/geodatasets/get',
    pathParameters: null,
    queryStringParameters: { layer, ...params },
    headers,
    body: null,
    isBase64Encoded: false,
    requestContext: { requestId: 'bench' },
  };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function timed(n: number, fn: () => Promise<unknown>): Promise<number> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  return median(times);
}

async function httpRate(url: string, headers: Record<string, string>): Promise<number> {
  await (await fetch(url, { headers })).arrayBuffer();
  const until = performance.now() + 3000;
  let n = 0;
  const t0 = performance.now();
  while (performance.now() < until || n < 2) {
    await (await fetch(url, { headers })).arrayBuffer();
    n++;
  }
  return n / ((performance.now() - t0) / 1000);
}

async function main() {
  const serverUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  const dbName = `mmgis_bench_tiles_${Date.now()}_${randomBytes(2).toString('hex')}`;
  await admin.unsafe(`create database ${dbName}`);
  const u = new URL(serverUrl);
  u.pathname = `/${dbName}`;
  const url = u.toString();
  process.env.DATABASE_URL = url;
  process.env.LOG_LEVEL = 'warn';
  const layer = 'bench_read_points';
  const db = createDb({ url, max: 2, statementTimeoutMs: 600_000 });
  let service: Awaited<ReturnType<typeof startServiceProcess>> | undefined;
  try {
    await prepareDatabase(url, undefined);
    const count = Number(process.env.BENCH_POINTS) || 200_000;
    await recreateGeodataset(db, featureCollectionText(points(count, 1)), {
      name: layer,
      startProp: 't',
      groupIdProp: 'g',
    });
    const ds = await requireDataset(db.sql, layer);
    if (process.env.BENCH_SKIP_HTTP !== '1') {
      service = await startServiceProcess({ databaseUrl: url, env: { AUTH: 'none', LOG_LEVEL: 'warn' } });
    }
    const h = getHandler as unknown as (
      e: unknown,
      c: unknown,
    ) => Promise<{ statusCode: number; body: string }>;
    console.log(`${count} points; case | SQL alone ms | handler ms | ratio (target) | bytes | HTTP req/s`);
    for (const c of tileReadCases({ ds })) {
      const sqlMs = await timed(c.iterations, () => c.sqlAlone(db, ds));
      let bytes = 0;
      // PostgreSQL flushes a backend's table statistics at most once a second, and an idle backend's after
      // 10 s: let the reads of the SQL alone above land before counting from here.
      if (c.expectStatus === 304) await new Promise((ok) => setTimeout(ok, STATS_FLUSH_MS));
      const before = await datasetTableReads(db, ds);
      const handlerMs = await timed(c.iterations, async () => {
        const res = await h(tileEvent(layer, c.params, c.headers), { awsRequestId: 'bench' });
        if (res.statusCode !== (c.expectStatus ?? 200))
          throw new Error(`${c.name}: HTTP ${res.statusCode} ${res.body.slice(0, 200)}`);
        bytes = Buffer.from(res.body, 'base64').length;
      });
      let touched = '';
      if (c.expectStatus === 304) {
        await new Promise((ok) => setTimeout(ok, STATS_FLUSH_MS));
        touched = `, dataset table reads during the 304s: ${(await datasetTableReads(db, ds)) - before}`;
      }
      const ratio = handlerMs / sqlMs;
      const t = c.target ?? {};
      const verdict = [
        t.ratio !== undefined ? `ratio <= ${t.ratio} ${ratio <= t.ratio ? 'ok' : 'MISSED'}` : '',
        t.maxMs !== undefined ? `<= ${t.maxMs} ms ${handlerMs <= t.maxMs ? 'ok' : 'MISSED'}` : '',
        t.maxBytes !== undefined ? `<= ${t.maxBytes} B ${bytes <= t.maxBytes ? 'ok' : 'MISSED'}` : '',
      ]
        .filter(Boolean)
        .join(', ');
      const qs = new URLSearchParams({ layer, ...c.params }).toString();
      const rate = service
        ? await httpRate(`${service.url}/api/geodatasets/get?${qs}`, c.headers ?? {})
        : Number.NaN;
      console.log(
        `${c.name} | ${sqlMs.toFixed(1)} | ${handlerMs.toFixed(1)} | ${ratio.toFixed(2)} (${verdict}) | ${bytes} | ${rate.toFixed(1)}${touched}`,
      );
    }
  } finally {
    await service?.stop();
    await db.end();
    await closeDb();
    await admin.unsafe(`drop database if exists ${dbName} with (force)`).catch(() => {});
    await admin.end();
  }
}

if (process.argv[1]?.endsWith('readTiles.js') || process.argv[1]?.endsWith('readTiles.ts')) await main();
