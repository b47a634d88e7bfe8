/**
 * `npm run bench:upload` — the upload figures of docs/benchmarks.md, on the PostGIS server (DATABASE_URL or the local
 * default; in a fresh database created and dropped here), for 200,000 points (BENCH_POINTS) and, unless
 * BENCH_UPLOAD_LARGE=0, 1,000,000 points:
 * - the reference: recreate of the same file in-process (lib `recreateGeodataset` on the file's text, in a
 *   child process: time and peak RSS);
 * - upload-to-ingested through the running local service: POST /upload, PUT to the S3 stand-in, the
 *   ObjectCreated event, the job polled every 100 ms until it succeeded (wall time);
 * - the ingest alone in its own process: the jobIngestUpload Lambda handler invoked with the S3 event of an
 *   object in a separate s3rver (no events there), its time and peak RSS (streaming: independent of size).
 */

import { randomBytes } from 'node:crypto';
import { createReadStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { handler as ingestHandler } from '../functions/jobs/ingestUpload.ts';
import { generateToken } from '../lib/auth/tokens.ts';
import { createUser } from '../lib/auth/users.ts';
import { closeDb, createDb, getDb } from '../lib/db/index.ts';
import { recreateGeodataset } from '../lib/geodatasets/write/write.ts';
import { createUpload } from '../lib/uploads/upload.ts';
import { freePort } from '../local/embedded/start.ts';
import { createFreshDatabase } from '../tests/setup/freshDatabase.ts';
import { runChild as runChildProcess } from './child.ts';
import { points, writeFeatureCollection } from './data.ts';
import { startServiceProcess } from './serviceProcess.ts';

const SERVER = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const N = Number(process.env.BENCH_POINTS) || 200_000;
const SIZES = process.env.BENCH_UPLOAD_LARGE === '0' ? [N] : [N, 1_000_000];
const OPTS = { startProp: 't', groupIdProp: 'g' };
const self = fileURLToPath(import.meta.url);
// s3rver (serverless-s3-local's engine) as a plain S3 stand-in without events; loaded at run time.
const S3rver = createRequire(import.meta.url)('s3rver');

interface ChildResult {
  ms: number;
  maxRssMB: number;
  detail: unknown;
}

/** In the child: one measured operation, then its time and peak RSS on stdout. */
async function child(mode: string, a: string, b: string, c: string): Promise<void> {
  let t0 = performance.now();
  let detail: unknown;
  // Where the memory is: the largest of each part of process.memoryUsage(), sampled every 100 ms.
  const peak: Record<string, number> = {};
  const sample = setInterval(() => {
    for (const [k, v] of Object.entries(process.memoryUsage())) peak[k] = Math.max(peak[k] ?? 0, v >> 20);
  }, 100);
  if (mode === 'recreate') {
    const text = readFileSync(a, 'utf8');
    t0 = performance.now();
    detail = await recreateGeodataset(getDb(), text, { name: b, ...OPTS });
  } else {
    const event = {
      Records: [{ eventName: 'ObjectCreated:Put', s3: { bucket: { name: a }, object: { key: b } } }],
    };
    detail = await ingestHandler(event);
    const [job] = await getDb().sql`select state, error, processed from jobs where id = ${c}`;
    detail = { ...(detail as object), job };
  }
  const ms = performance.now() - t0;
  clearInterval(sample);
  detail = { ...(detail as object), peakMB: peak };
  const maxRssMB = process.resourceUsage().maxRSS / 1024;
  await closeDb();
  process.stdout.write(`${JSON.stringify({ ms, maxRssMB, detail })}\n`);
}

function runChild(args: string[], env: Record<string, string>): Promise<ChildResult> {
  return runChildProcess(self, args, { STATEMENT_TIMEOUT_MS: '850000', ...env }, args[0]);
}

async function put(url: string, file: string, headers: Record<string, string>) {
  const res = await fetch(url, {
    method: 'PUT',
    headers: { ...headers, 'content-length': String(statSync(file).size) },
    body: Readable.toWeb(createReadStream(file, { highWaterMark: 1 << 20 })) as any,
    duplex: 'half',
  } as RequestInit);
  if (!res.ok) throw new Error(`PUT answered ${res.status}: ${await res.text()}`);
}

/** presign → PUT → ObjectCreated → job succeeded, through the local service. */
async function viaService(api: string, token: string, file: string, name: string) {
  const auth = { authorization: `Bearer ${token}` };
  const t0 = performance.now();
  const r = await fetch(`${api}/api/geodatasets/upload`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ name, ...OPTS, size: statSync(file).size }),
  });
  const created = (await r.json()) as any;
  if (r.status !== 201) throw new Error(`upload request: ${r.status} ${JSON.stringify(created)}`);
  await put(created.body.upload.url, file, created.body.upload.headers);
  const putMs = performance.now() - t0;
  let maxSeen = 0;
  for (;;) {
    const j = (
      (await (
        await fetch(`${api}/api/geodatasets/jobs/${created.body.job.id}`, { headers: auth })
      ).json()) as any
    ).body.job;
    if (j.state === 'running') maxSeen = Math.max(maxSeen, j.processed ?? 0);
    if (j.state === 'failed') throw new Error(`ingest failed: ${j.error}`);
    if (j.state === 'succeeded') return { ms: performance.now() - t0, putMs, job: j, progressSeen: maxSeen };
    await new Promise((ok) => setTimeout(ok, 100));
  }
}

async function main() {
  if (process.argv[2] === '--child') {
    return child(process.argv[3], process.argv[4], process.argv[5], process.argv[6]);
  }
  const dir = mkdtempSync(join(tmpdir(), 'bench-upload-'));
  const fresh = await createFreshDatabase(SERVER);
  const db = createDb({ url: fresh.url, max: 2 });
  const s3Port = await freePort();
  const s3dir = mkdtempSync(join(tmpdir(), 'bench-s3-'));
  const s3 = new S3rver({
    port: s3Port,
    address: '127.0.0.1',
    directory: s3dir,
    silent: true,
    configureBuckets: [{ name: 'bench-uploads', configs: [] }],
  });
  await s3.run();
  const svc = await startServiceProcess({ databaseUrl: fresh.url, env: { LOG_LEVEL: 'warn', AUTH: 'none' } });
  const standalone = { S3_ENDPOINT: `http://127.0.0.1:${s3Port}`, UPLOAD_BUCKET: 'bench-uploads' };
  Object.assign(process.env, standalone);
  try {
    const user = await createUser(db.sql, {
      username: `bench_${randomBytes(3).toString('hex')}`,
      password: randomBytes(12).toString('hex'),
      role: 'admin',
    });
    const token = (await generateToken(db.sql, user.id, { name: 'bench' })).token;
    for (const n of SIZES) {
      const file = join(dir, `points-${n}.json`);
      const bytes = await writeFeatureCollection(file, points(n, 1));
      const env = { DATABASE_URL: fresh.url, ...standalone };
      const rec = await runChild(['recreate', file, `bench_rec_${n}`], env);
      const http = await viaService(svc.url, token, file, `bench_up_${n}`);
      // The ingest alone: the object in the standalone S3 (no events), the Lambda handler in a child.
      process.env.DATABASE_URL = fresh.url;
      const u = await createUpload(db, { name: `bench_ing_${n}`, ...OPTS, size: bytes });
      await put(u.upload.url, file, u.upload.headers);
      const key = `incoming/${u.job.id}`;
      const ing = await runChild(['ingest', 'bench-uploads', key, u.job.id], env);
      const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
      console.log(`\n== ${n} points, ${(bytes / 1e6).toFixed(1)} MB file (PostGIS server)`);
      console.log(
        `recreate in-process (lib, text in memory): ${s(rec.ms)}, peak RSS ${rec.maxRssMB.toFixed(0)} MB`,
      );
      console.log(
        `upload-to-ingested through the local service: ${s(http.ms)} (PUT ${s(http.putMs)}); ` +
          `ratio to recreate ${(http.ms / rec.ms).toFixed(2)} (target <= 1.5)`,
      );
      console.log(
        `  job progress seen while running (polled every 100 ms): processed up to ${http.progressSeen} of ${n}`,
      );
      console.log(
        `ingest alone (Lambda handler, own process): ${s(ing.ms)}, peak RSS ${ing.maxRssMB.toFixed(0)} MB ` +
          `(target <= 200 MB); sampled peaks (MB) ${JSON.stringify((ing.detail as any).peakMB)}; ` +
          `${JSON.stringify((ing.detail as any).job)}`,
      );
      rmSync(file, { force: true });
    }
  } finally {
    await svc.stop();
    await s3.close();
    await db.end();
    await closeDb();
    await fresh.drop();
    rmSync(dir, { recursive: true, force: true });
    rmSync(s3dir, { recursive: true, force: true });
  }
}

await main();
