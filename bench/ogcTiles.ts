/**
 * `npm run bench:ogc-tiles` — the OGC API – Tiles figures of docs/ogc-tiles.md on the PostGIS server
 * (DATABASE_URL or the local default), in a fresh database created and dropped here, with the read bench's
 * seeded points (BENCH_POINTS, default 200,000), through the local service (serverless-offline): the same
 * tile by the OGC route and by `GET /api/geodatasets/get?type=mvt` (z12 over the dense cluster, z0), a
 * revalidation (304) of each, and the tileset metadata (catalog row only).
 */
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { createDb } from '../lib/db/index.ts';
import { recreateGeodataset } from '../lib/geodatasets/write/write.ts';
import { prepareDatabase } from '../local/devServer.ts';
import { CLUSTER, featureCollectionText, points } from './data.ts';
import { startServiceProcess } from './serviceProcess.ts';

const N_POINTS = Number(process.env.BENCH_POINTS) || 200_000;
const RUNS = 15;
const LAYER = 'bench_ogc_tiles';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function timed(url: string, headers: Record<string, string> = {}) {
  const t0 = performance.now();
  const res = await fetch(url, { headers });
  const bytes = (await res.arrayBuffer()).byteLength;
  return { ms: performance.now() - t0, status: res.status, bytes, etag: res.headers.get('etag') ?? '' };
}

async function medianOf(url: string, headers: Record<string, string> = {}) {
  const first = await timed(url, headers);
  const ms: number[] = [];
  for (let i = 0; i < RUNS; i++) ms.push((await timed(url, headers)).ms);
  return { ...first, ms: median(ms) };
}

async function main() {
  const serverUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  const dbName = `mmgis_bench_ogct_${Date.now()}_${randomBytes(2).toString('hex')}`;
  await admin.unsafe(`create database ${dbName}`);
  const u = new URL(serverUrl);
  u.pathname = `/${dbName}`;
  const url = u.toString();
  let service: Awaited<ReturnType<typeof startServiceProcess>> | undefined;
  const db = createDb({ url, max: 2, statementTimeoutMs: 600_000 });
  try {
    await prepareDatabase(url, undefined);
    await recreateGeodataset(db, featureCollectionText(points(N_POINTS, 1)), { name: LAYER, startProp: 't' });
    service = await startServiceProcess({ databaseUrl: url, env: { AUTH: 'none', LOG_LEVEL: 'warn' } });
    const ogc = `${service.url}/api/ogc/collections/${LAYER}/tiles/WebMercatorQuad`;
    const mmgis = `${service.url}/api/geodatasets/get/${LAYER}?type=mvt`;
    const n = 2 ** 12;
    const x = Math.floor(((CLUSTER.lon + 180) / 360) * n);
    const r = (CLUSTER.lat * Math.PI) / 180;
    const y = Math.floor(((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * n);

    console.log(`data: ${N_POINTS} seeded points; median of ${RUNS} sequential requests after one warm-up`);
    console.log('\ncase | OGC route ms | /api/geodatasets/get ms | ratio | status | bytes');
    for (const [name, z, row, col] of [
      ['z12 over the dense cluster', 12, y, x],
      ['z0 whole layer', 0, 0, 0],
    ] as const) {
      const a = await medianOf(`${ogc}/${z}/${row}/${col}`);
      const b = await medianOf(`${mmgis}&z=${z}&x=${col}&y=${row}`);
      console.log(
        `${name} | ${a.ms.toFixed(1)} | ${b.ms.toFixed(1)} | ${(a.ms / b.ms).toFixed(2)} | ${a.status} | ${a.bytes}`,
      );
      const a304 = await medianOf(`${ogc}/${z}/${row}/${col}`, { 'If-None-Match': a.etag });
      const b304 = await medianOf(`${mmgis}&z=${z}&x=${col}&y=${row}`, { 'If-None-Match': b.etag });
      console.log(
        `${name}, revalidation | ${a304.ms.toFixed(1)} | ${b304.ms.toFixed(1)} | ${(a304.ms / b304.ms).toFixed(2)} | ${a304.status} | 0`,
      );
    }
    const meta = await medianOf(ogc);
    const tilejson = await medianOf(`${service.url}/api/geodatasets/tilejson/${LAYER}`);
    console.log(
      `tileset metadata vs TileJSON | ${meta.ms.toFixed(1)} | ${tilejson.ms.toFixed(1)} | ${(meta.ms / tilejson.ms).toFixed(2)} | ${meta.status} | ${meta.bytes}`,
    );
  } finally {
    await service?.stop();
    await db.end();
    await admin.unsafe(`drop database if exists ${dbName} with (force)`).catch(() => {});
    await admin.end();
  }
}

await main();
