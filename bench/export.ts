/**
 * `npm run bench:export -- --points=1000000[,4000000]`: the export job of a whole-layer GeoJSON read
 * (docs/geodatasets-read.md, "Export jobs") at scale, on the PostGIS server of `DATABASE_URL` (migrated;
 * an `export_<n>` layer of n points made by SQL, kept with `--reuse`). For each size:
 * - over HTTP: the service (`startServiceProcess`, the code `npm start` runs) with `EXPORT_ABOVE_FEATURES`
 *   below the layer's size; one `GET /api/geodatasets/get?layer=` answers 202, the job's `Location` is
 *   followed until the job has ended; the time to the 202, to the job's end, the object's bytes (checked by
 *   download), and the peak RSS of the serverless-offline process group (its Lambda workers are threads of
 *   it; the S3 stand-in runs in it too), sampled every 100 ms, beside its value before;
 * - the job function alone: `functions/jobs/exportGeodataset.ts`'s handler invoked in-process in a fresh
 *   process (writing to the service's S3 stand-in), its time and peak RSS (`maxRSS`): what a Lambda holds.
 * Prints the load average beside the figures.
 */
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { closeDb, createDb, type Db } from '../lib/db/index.ts';
import { findDataset, type Geodataset, requireDataset, sqlTable } from '../lib/geodatasets/catalog.ts';
import { updateExtents } from '../lib/geodatasets/extents.ts';
import { recreateGeodataset } from '../lib/geodatasets/write/write.ts';
import { createJob } from '../lib/jobs/jobs.ts';
import { EXPORT_KIND, exportInput } from '../lib/uploads/exportRule.ts';
import { prepareDatabase } from '../local/devServer.ts';
import { runChild } from './child.ts';
import { groupRss, peakSampler } from './loadMetrics.ts';
import { startServiceProcess } from './serviceProcess.ts';

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const SIZES = (arg('points') ?? '1000000').split(',').map(Number);
const MB = 1048576;
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

/** A layer of n points made by SQL (bench/scale.ts's shape: uniform half, clustered half). */
async function seed(db: Db, n: number): Promise<Geodataset> {
  const name = `export_${n}`;
  const found = await findDataset(db.sql, name);
  if (found && process.argv.includes('--reuse') && found.numFeatures === n) return found;
  const one = { type: 'Feature', geometry: { type: 'Point', coordinates: [0, 0] }, properties: { n: 0 } };
  await recreateGeodataset(db, { type: 'FeatureCollection', features: [one] }, { name });
  const ds = await requireDataset(db.sql, name);
  const t = sqlTable(db.sql, ds);
  await db.sql`truncate ${t}`;
  const t0 = performance.now();
  await db.sql`insert into ${t} (geom, properties)
    select case when i % 2 = 0
        then ST_SetSRID(ST_MakePoint(-125 + random() * 60, 25 + random() * 25), 4326)
        else ST_SetSRID(ST_MakePoint(-120 + (i % 40) * 1.3 + (random() + random() + random() - 1.5) * 0.4,
                                     28 + (i % 13) * 1.5 + (random() + random() + random() - 1.5) * 0.4), 4326) end,
      jsonb_build_object('n', i, 'f', i / 7.0, 's', 'name ' || i, 't', '2024-01-01T00:00:00Z', 'g', 'g' || (i % 1000))
    from generate_series(1, ${n}::int) i`;
  await db.sql`update geodatasets set num_features = ${n}, version = version + 1 where id = ${ds.id}`;
  await db.sql`analyze ${t}`;
  await updateExtents(db.sql, ds);
  console.log(`seed ${n}: ${((performance.now() - t0) / 1000).toFixed(1)} s (load ${load()})`);
  return requireDataset(db.sql, name);
}

/** In the child: the job handler on job `jobId`, its time and peak RSS. */
async function child(jobId: string): Promise<void> {
  const { handler } = await import('../functions/jobs/exportGeodataset.ts');
  const t0 = performance.now();
  const out = await handler({ jobId });
  const ms = performance.now() - t0;
  console.log(JSON.stringify({ ms, maxRssMB: process.resourceUsage().maxRSS / 1024, out }));
  await closeDb();
  process.exit(0);
}

async function followed(location: string): Promise<Record<string, any>> {
  for (;;) {
    const r = await fetch(location);
    const job = ((await r.json()) as any).body?.job;
    if (!job) throw new Error(`job: ${r.status}`);
    if (job.state === 'succeeded' || job.state === 'failed') return job;
    await new Promise((ok) => setTimeout(ok, 500));
  }
}

async function download(url: string): Promise<number> {
  const object = await fetch(url);
  let bytes = 0;
  for await (const chunk of object.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
  return bytes;
}

async function measure(databaseUrl: string, db: Db, ds: Geodataset): Promise<void> {
  const n = ds.numFeatures;
  const svc = await startServiceProcess({
    databaseUrl,
    env: { LOG_LEVEL: 'warn', AUTH: 'none', EXPORT_ABOVE_FEATURES: String(Math.floor(n / 2)) },
  });
  try {
    const pgid = svc.pid()!;
    const before = groupRss(pgid);
    const group = peakSampler(() => groupRss(pgid), 100);
    const t0 = performance.now();
    const res = await fetch(`${svc.url}/api/geodatasets/get?layer=${ds.name}&type=geojson`, {
      redirect: 'manual',
    });
    const answer = (await res.json()) as any;
    const answerMs = performance.now() - t0;
    if (res.status !== 202) throw new Error(`get: ${res.status} ${JSON.stringify(answer).slice(0, 300)}`);
    const job = await followed(res.headers.get('location')!);
    const jobS = (performance.now() - t0) / 1000;
    const peak = await group.stop();
    if (job.state !== 'succeeded') throw new Error(`export failed: ${job.error}`);
    const bytes = await download(job.result.url);
    if (bytes !== job.result.bytes) throw new Error(`downloaded ${bytes} of ${job.result.bytes} bytes`);
    console.log(
      `export ${n} over HTTP: 202 in ${answerMs.toFixed(0)} ms, job done in ${jobS.toFixed(1)} s, ` +
        `${job.result.features} features, ${(bytes / MB).toFixed(0)} MiB; service group RSS ` +
        `${(before / MB).toFixed(0)} → peak ${(peak / MB).toFixed(0)} MiB (load ${load()})`,
    );
    // The function alone, in a fresh process, on a new job of the same read.
    const bucket = new URL(job.result.url).pathname.split('/')[1];
    const own = await createJob(db.sql, EXPORT_KIND, ds.name, exportInput(ds, {}) as any);
    const alone = await runChild<{ ms: number; maxRssMB: number; out: { state: string } }>(
      fileURLToPath(import.meta.url),
      [own.id],
      { DATABASE_URL: databaseUrl, S3_ENDPOINT: svc.s3Endpoint, UPLOAD_BUCKET: bucket },
      'export job',
    );
    if (alone.out.state !== 'succeeded') throw new Error(`export alone: ${JSON.stringify(alone.out)}`);
    console.log(
      `export ${n}, job function alone: ${(alone.ms / 1000).toFixed(1)} s, peak RSS ${alone.maxRssMB.toFixed(0)} MiB (load ${load()})`,
    );
  } finally {
    await svc.stop();
  }
}

async function main(): Promise<void> {
  const url = process.env.DATABASE_URL;
  if (!url)
    throw new Error('DATABASE_URL names the bench database (e.g. postgres://postgres@127.0.0.1:5432/export)');
  await prepareDatabase(url, undefined);
  // Seeding runs statements longer than the service's timeout.
  const db = createDb({ url, max: 1, statementTimeoutMs: 0 });
  try {
    for (const n of SIZES) await measure(url, db, await seed(db, n));
  } finally {
    await db.end();
  }
}

if (process.argv[2] === '--child') await child(process.argv[3]);
else await main();
