/**
 * `npm run bench:ingest` — the write-side figures of docs/benchmarks.md, on the PostGIS server (DATABASE_URL or the
 * local default; in a fresh database created and dropped here) and on the embedded database:
 * - recreate of 200,000 points through the recreate handler invoked in-process with an API Gateway event
 *   carrying the whole body, its time and the peak RSS of that process (a child process per measurement);
 * - the reference: a raw COPY of the same rows into an indexed table (server only: COPY hangs PGlite);
 * - recreate of 20,000 ten-vertex polygons, append of 10,000 points, convert_properties of 200,000.
 */

import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { handler as appendHandler } from '../functions/geodatasets/append.ts';
import { handler as recreateHandler } from '../functions/geodatasets/recreate_name.ts';
import { generateToken } from '../lib/auth/tokens.ts';
import { createUser } from '../lib/auth/users.ts';
import { closeDb, createDb, type Db } from '../lib/db/index.ts';
import { convertProperties } from '../lib/geodatasets/manage.ts';
import { recreateGeodataset } from '../lib/geodatasets/write/write.ts';
import { prepareDatabase } from '../local/devServer.ts';
import { startEmbedded } from '../local/embedded/start.ts';
import { runChild as runChildProcess } from './child.ts';
import { points, polygons, writeFeatureCollection } from './data.ts';
import { appendReference, copyReference } from './ingestReference.ts';

const N_POINTS = Number(process.env.BENCH_POINTS) || 200_000;
const N_POLYGONS = Number(process.env.BENCH_POLYGONS) || 20_000;
const N_APPEND = 10_000;
const RUNS = Number(process.env.BENCH_RUNS) || 2;
const self = fileURLToPath(import.meta.url);

interface ChildResult {
  ms: number;
  maxRssMB: number;
  /** RSS with the body read and the modules loaded, just before the handler runs. */
  rssBeforeMB: number;
  statusCode: number;
  body: string;
}

/** In the child: read the body, build the event, time the handler, report peak RSS. */
async function child(mode: string, file: string, name: string): Promise<void> {
  const text = readFileSync(file, 'utf8');
  const h = (mode === 'append' ? appendHandler : recreateHandler) as unknown as (
    e: unknown,
    c: unknown,
  ) => Promise<{ statusCode: number; body: string }>;
  const event = (body: string) => ({
    httpMethod: 'POST',
    path: `/api/geodatasets/${mode === 'append' ? 'append' : 'recreate'}/${name}`,
    pathParameters: { name },
    queryStringParameters: { start_prop: 't', group_id_prop: 'g' },
    headers: { Authorization: `Bearer ${process.env.BENCH_TOKEN}`, 'Content-Type': 'application/json' },
    body,
    isBase64Encoded: false,
    requestContext: { requestId: 'bench' },
  });
  const ctx = { awsRequestId: 'bench' };
  if (mode === 'append') {
    // Warm the connection pool and the token lookup as a warm Lambda would have them.
    await h(event('{"type":"FeatureCollection","features":[]}'), ctx);
  }
  const rssBeforeMB = process.memoryUsage().rss / 1048576;
  // Sampled, not getrusage's maxRSS: on Linux that high-water mark survives exec and includes the forking
  // parent's pages (the embedded database lives in the parent).
  let peak = process.memoryUsage().rss;
  const sample = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  const t0 = performance.now();
  const res = await h(event(text), ctx);
  const ms = performance.now() - t0;
  clearInterval(sample);
  const maxRssMB = Math.max(peak, process.memoryUsage().rss) / 1048576;
  await closeDb();
  process.stdout.write(
    `${JSON.stringify({ ms, maxRssMB, rssBeforeMB, statusCode: res.statusCode, body: res.body.slice(0, 300) })}\n`,
  );
}

async function runChild(
  mode: string,
  file: string,
  name: string,
  url: string,
  token: string,
): Promise<ChildResult> {
  const r = await runChildProcess<ChildResult>(
    self,
    [mode, file, name],
    {
      DATABASE_URL: url,
      BENCH_TOKEN: token,
      MAX_BODY_BYTES: String(512 * 1024 * 1024),
      STATEMENT_TIMEOUT_MS: '600000',
    },
    mode,
  );
  if (r.statusCode !== 200) throw new Error(`${mode} answered ${r.statusCode}: ${r.body}`);
  return r;
}

async function adminToken(db: Db): Promise<string> {
  const user = await createUser(db.sql, {
    username: `bench_${randomBytes(3).toString('hex')}`,
    password: randomBytes(12).toString('hex'),
    role: 'admin',
  });
  return (await generateToken(db.sql, user.id, { name: 'bench' })).token;
}

interface Figures {
  copyMs: number | null;
  recreateMs: number;
  recreateRssMB: number;
  recreateRssBeforeMB: number;
  polygonsMs: number;
  polygonsRssMB: number;
  appendMs: number;
  appendRefMs: number;
  convertMs: number;
}

async function suite(url: string, files: Record<string, string>, withCopy: boolean): Promise<Figures> {
  const db = createDb({ url, max: 2, statementTimeoutMs: 600_000 });
  try {
    const token = await adminToken(db);
    // The machine is shared: each timed figure is the best of RUNS runs (COPY and recreate alike).
    let copyMs: number | null = null;
    if (withCopy)
      for (let i = 0; i < RUNS; i++) copyMs = Math.min(copyMs ?? Infinity, await copyReference(db, N_POINTS));
    let rec = await runChild('recreate', files.points, 'bench_points', url, token);
    for (let i = 1; i < RUNS; i++) {
      const again = await runChild('recreate', files.points, 'bench_points', url, token);
      rec = { ...(again.ms < rec.ms ? again : rec), maxRssMB: Math.max(rec.maxRssMB, again.maxRssMB) };
    }
    const poly = await runChild('recreate', files.polygons, 'bench_polygons', url, token);
    let app = await runChild('append', files.append, 'bench_points', url, token);
    for (let i = 1; i < RUNS; i++) {
      const again = await runChild('append', files.append, 'bench_points', url, token);
      if (again.ms < app.ms) app = again;
    }
    const appendRefMs = await appendReference(db, 'bench_points', RUNS, N_APPEND);
    // A json dataset of the same 200,000 points (lib code: no endpoint creates json), then the conversion.
    await recreateGeodataset(
      db,
      readFileSync(files.points, 'utf8'),
      { name: 'bench_json', startProp: 't' },
      {
        propertiesType: 'json',
      },
    );
    let convertMs = Infinity;
    for (let i = 0; i < RUNS; i++) {
      if (i > 0) {
        await recreateGeodataset(
          db,
          readFileSync(files.points, 'utf8'),
          { name: 'bench_json' },
          {
            propertiesType: 'json',
          },
        );
      }
      const t0 = performance.now();
      const conv = await convertProperties(db, 'bench_json');
      convertMs = Math.min(convertMs, performance.now() - t0);
      if (!conv.converted) throw new Error('convert_properties did nothing');
    }
    return {
      copyMs,
      recreateMs: rec.ms,
      recreateRssMB: rec.maxRssMB,
      recreateRssBeforeMB: rec.rssBeforeMB,
      polygonsMs: poly.ms,
      polygonsRssMB: poly.maxRssMB,
      appendMs: app.ms,
      appendRefMs,
      convertMs,
    };
  } finally {
    await db.end();
  }
}

function report(where: string, f: Figures) {
  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  console.log(`\n== ${where} (best of ${RUNS} runs; peak RSS the largest)`);
  if (f.copyMs !== null) {
    console.log(`raw COPY of ${N_POINTS} points into an indexed table: ${s(f.copyMs)}`);
  } else console.log('raw COPY: not measured (COPY FROM STDIN hangs the embedded database)');
  console.log(
    `recreate ${N_POINTS} points (handler in-process): ${s(f.recreateMs)}` +
      (f.copyMs !== null ? `  ratio to COPY ${(f.recreateMs / f.copyMs).toFixed(2)} (target <= 2)` : ''),
  );
  console.log(
    `  peak RSS of that process: ${f.recreateRssMB.toFixed(0)} MB (target <= 300 MB; ` +
      `${f.recreateRssBeforeMB.toFixed(0)} MB with the body read, before the handler ran)`,
  );
  console.log(
    `recreate ${N_POLYGONS} ten-vertex polygons: ${s(f.polygonsMs)}, peak RSS ${f.polygonsRssMB.toFixed(0)} MB`,
  );
  console.log(
    `append ${N_APPEND} points: ${s(f.appendMs)} (target <= 0.3 s; the database alone, ` +
      `INSERT ... SELECT of ${N_APPEND} stored rows into the same indexed table: ${s(f.appendRefMs)})`,
  );
  console.log(`convert_properties json -> jsonb of ${N_POINTS} features: ${s(f.convertMs)} (target <= 5 s)`);
}

async function main() {
  if (process.argv[2] === '--child') return child(process.argv[3], process.argv[4], process.argv[5]);
  const dir = mkdtempSync(join(tmpdir(), 'bench-ingest-'));
  const files = {
    points: join(dir, 'points.json'),
    polygons: join(dir, 'polygons.json'),
    append: join(dir, 'append.json'),
  };
  try {
    await writeFeatureCollection(files.points, points(N_POINTS, 1));
    await writeFeatureCollection(files.polygons, polygons(N_POLYGONS, 2));
    await writeFeatureCollection(files.append, points(N_APPEND, 3));
    const mb = (p: string) => (statSync(p).size / 1048576).toFixed(1);
    console.log(
      `data: ${N_POINTS} points ${mb(files.points)} MB, ${N_POLYGONS} polygons ${mb(files.polygons)} MB, ` +
        `${N_APPEND} points to append ${mb(files.append)} MB (seeded)`,
    );
    console.log(
      `load average at start: ${loadavg()
        .map((x) => x.toFixed(1))
        .join(' ')} (${cpus().length} CPUs)`,
    );
    const serverUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
    const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
    const name = `mmgis_bench_${Date.now()}_${randomBytes(2).toString('hex')}`;
    let server: Figures | null = null;
    try {
      await admin.unsafe(`create database ${name}`);
      const u = new URL(serverUrl);
      u.pathname = `/${name}`;
      await prepareDatabase(u.toString(), undefined);
      server = await suite(u.toString(), files, true);
      report('PostGIS server', server);
    } catch (e) {
      console.log(`server: failed: ${(e as Error).message}`);
    } finally {
      await admin.unsafe(`drop database if exists ${name} with (force)`).catch(() => {});
      await admin.end();
    }
    if (process.env.BENCH_SKIP_EMBEDDED !== '1') {
      const emb = await startEmbedded('memory://');
      try {
        await prepareDatabase(emb.url, undefined);
        report('embedded PGlite', await suite(emb.url, files, false));
      } finally {
        await emb.stop();
      }
    }
    console.log(
      `\nload average at end: ${loadavg()
        .map((x) => x.toFixed(1))
        .join(' ')}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
