/**
 * `npm run bench:read-memory [-- --points=250000,1000000 --before=DIR]`: the memory of a whole-layer GeoJSON
 * read (docs/benchmarks.md). On the PostGIS server of `DATABASE_URL` (or the local default) it creates a
 * database of its own (dropped at the end), loads the seeded points of bench/data.ts in steps up to each
 * size of `--points`, and for each size starts the service with `startService` (the code `npm start`
 * runs) and makes one `GET /api/geodatasets/get?type=geojson` of the whole layer over HTTP. It prints the
 * answer's bytes and status, the time to the answer (a 303 once the answer is over the inline limit) and
 * to the end of the download of the object, the peak RSS of the serverless-offline process group (its
 * Lambda workers are threads of it; the S3 stand-in runs in it too) and the peak private memory
 * (`RssAnon`, and `VmRSS` which also counts the shared buffers it touched) of the database backends of
 * the service (`application_name = 'mmgis-serverless'`), each sampled every 100 ms, next to their values
 * before the request. Then the function alone: the same request to the `get` handler invoked in-process
 * in a fresh process (bench/read.ts's child mode, warm), writing to the service's S3 stand-in, its time
 * and sampled peak RSS.
 *
 * `--before=DIR` also measures the service built in DIR (a checkout of an earlier commit with its
 * `node_modules` and `node scripts/build.mjs` done) on the same data: the before/after of a change.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import postgres from 'postgres';
import { createDb } from '../lib/db/index.ts';
import { appendGeodataset, recreateGeodataset } from '../lib/geodatasets/write/write.ts';
import { prepareDatabase } from '../local/devServer.ts';
import { runChild } from './child.ts';
import { points } from './data.ts';
import { groupRss, peakSampler } from './loadMetrics.ts';
import { startServiceProcess } from './serviceProcess.ts';

const arg = (name: string, fallback: string) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback;

/** bench/read.ts's layer: its child mode (the handler in-process) is reused here, for both builds. */
const LAYER = 'bench_read_points';
const MB = 1048576;

/** Points `from` .. `to` - 1 of the seeded set, one at a time (the loader never holds them all). */
async function* range(from: number, to: number) {
  let i = 0;
  for (const f of points(to, 1)) if (i++ >= from) yield f;
}

/** `RssAnon` and `VmRSS` (bytes) of a process, or zeros when it is gone. */
function memoryOf(pid: number): { anon: number; rss: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) * 1024;
    return { anon: kb('RssAnon'), rss: kb('VmRSS') };
  } catch {
    return { anon: 0, rss: 0 };
  }
}

interface Measure {
  build: string;
  points: number;
  status: number;
  bytes: number;
  answerS: number;
  downloadS: number;
  groupBefore: number;
  groupPeak: number;
  anonBefore: number;
  anonPeak: number;
  rssPeak: number;
  /** The handler invoked in-process in a process of its own (bench/read.ts's child): time, peak RSS. */
  handlerS: number;
  handlerPeakMB: number;
}

async function measure(
  build: string,
  root: string,
  databaseUrl: string,
  admin: postgres.Sql,
  database: string,
  n: number,
): Promise<Measure> {
  const here = process.cwd();
  process.chdir(root);
  const svc = await startServiceProcess({
    databaseUrl,
    env: { AUTH: 'none', LOG_LEVEL: 'warn', STATEMENT_TIMEOUT_MS: '600000' },
  }).finally(() => process.chdir(here));
  try {
    const url = `${svc.url}/api/geodatasets/get?layer=${LAYER}&type=geojson`;
    // Warm: the worker, its pool and the catalog lookup, as on a warm Lambda.
    const warm = await fetch(`${url}&limit=1`);
    if (warm.status !== 200) throw new Error(`warm-up: ${warm.status} ${await warm.text()}`);
    const backends = async () =>
      (
        await admin`select pid from pg_stat_activity
          where datname = ${database} and application_name = 'mmgis-serverless'`
      ).map((r) => Number(r.pid));
    const backendMemory = async () => {
      const all = (await backends()).map(memoryOf);
      return {
        anon: all.reduce((s, m) => s + m.anon, 0),
        rss: all.reduce((s, m) => s + m.rss, 0),
      };
    };
    const pgid = svc.pid()!;
    const groupBefore = groupRss(pgid);
    const anonBefore = (await backendMemory()).anon;
    const group = peakSampler(() => groupRss(pgid), 100);
    const anon = peakSampler(async () => (await backendMemory()).anon, 100);
    const rss = peakSampler(async () => (await backendMemory()).rss, 100);
    const t0 = performance.now();
    const res = await fetch(url, { redirect: 'manual' });
    const first = await res.text();
    const answerS = (performance.now() - t0) / 1000;
    let bytes = Buffer.byteLength(first);
    if (res.status === 303) {
      const object = await fetch(res.headers.get('location')!);
      let downloaded = 0;
      for await (const chunk of object.body as unknown as AsyncIterable<Uint8Array>)
        downloaded += chunk.length;
      bytes = JSON.parse(first).bytes;
      if (downloaded !== bytes) throw new Error(`downloaded ${downloaded} bytes of ${bytes}`);
    }
    const downloadS = (performance.now() - t0) / 1000;
    const [groupPeak, anonPeak, rssPeak] = await Promise.all([group.stop(), anon.stop(), rss.stop()]);
    if (res.status !== 200 && res.status !== 303)
      throw new Error(`get: ${res.status} ${first.slice(0, 300)}`);
    // The function alone: the same request to the handler in a fresh process, writing to the service's
    // S3 stand-in (the bucket named in the 303), without serverless-offline around it.
    const bucket = res.status === 303 ? new URL(JSON.parse(first).url).pathname.split('/')[1] : '';
    const handler = await runChild<{ ms: number; maxRssMB: number }>(
      `${root}/dist/bench/read.js`,
      [JSON.stringify({ params: { type: 'geojson' } })],
      {
        DATABASE_URL: databaseUrl,
        STATEMENT_TIMEOUT_MS: '600000',
        ...(bucket ? { S3_ENDPOINT: svc.s3Endpoint, UPLOAD_BUCKET: bucket } : {}),
      },
      `${build} handler`,
    );
    return {
      build,
      points: n,
      status: res.status,
      bytes,
      answerS,
      downloadS,
      groupBefore,
      groupPeak,
      anonBefore,
      anonPeak,
      rssPeak,
      handlerS: handler.ms / 1000,
      handlerPeakMB: handler.maxRssMB,
    };
  } finally {
    await svc.stop();
  }
}

function row(m: Measure): string {
  const mb = (x: number) => (x / MB).toFixed(0);
  return `| ${m.build} | ${m.points.toLocaleString('en-US')} | ${m.status} | ${(m.bytes / MB).toFixed(1)} MiB | ${m.answerS.toFixed(1)} | ${m.downloadS.toFixed(1)} | ${mb(m.groupBefore)} → ${mb(m.groupPeak)} | ${m.handlerS.toFixed(1)} s, ${m.handlerPeakMB.toFixed(0)} | ${mb(m.anonBefore)} → ${mb(m.anonPeak)} | ${mb(m.rssPeak)} |`;
}

async function main() {
  const sizes = arg('points', '250000,1000000')
    .split(',')
    .map(Number)
    .sort((a, b) => a - b);
  const before = arg('before', '');
  const serverUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  const database = `mmgis_bench_readmem_${Date.now()}_${randomBytes(2).toString('hex')}`;
  await admin.unsafe(`create database ${database}`);
  const u = new URL(serverUrl);
  u.pathname = `/${database}`;
  const databaseUrl = u.toString();
  const results: Measure[] = [];
  try {
    await prepareDatabase(databaseUrl, undefined);
    const db = createDb({ url: databaseUrl, max: 2, statementTimeoutMs: 3_600_000 });
    let loaded = 0;
    for (const n of sizes) {
      const t0 = performance.now();
      const opts = { name: LAYER, startProp: 't', groupIdProp: 'g' };
      if (loaded === 0) await recreateGeodataset(db, range(0, n), opts);
      else await appendGeodataset(db, range(loaded, n), opts);
      await db.sql.unsafe('vacuum analyze').catch(() => {});
      console.error(`loaded ${n} points in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
      loaded = n;
      if (before) results.push(await measure('before', before, databaseUrl, admin, database, n));
      results.push(await measure('after', process.cwd(), databaseUrl, admin, database, n));
      console.error(row(results.at(-1)!));
    }
    await db.end();
  } finally {
    await admin.unsafe(`drop database if exists ${database} with (force)`).catch(() => {});
    await admin.end();
  }
  console.log(`\n## Whole-layer GeoJSON read: memory (load average ${loadavg()[0].toFixed(1)})\n`);
  console.log(
    '| build | points | status | answer | to the answer (s) | + download (s) | serverless-offline group RSS before → peak (MB) | handler alone: time, peak RSS (MB) | DB backend RssAnon before → peak (MB) | DB backend VmRSS peak (MB) |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const m of results) console.log(row(m));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
