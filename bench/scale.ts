/**
 * `npm run bench:scale -- --points=200000,1000000,4000000` (10000000 when asked): a big layer's figures
 * beside their limits, on the PostGIS server (DATABASE_URL, the database is migrated and a `scale_<n>`
 * layer recreated in it), ending with one table of every figure beside its limit:
 * - the ingest (bench/scaleUpload.ts): half the points uniform over a continent-size box, half in
 *   Gaussian clusters, written to a GeoJSON file and uploaded end to end through the local service as
 *   `npm run upload` does it; beside it, in the same run, COPY-then-index of the same rows; the private
 *   memory of the database's processes sampled during each (docs/uploads.md, "Ingest at scale");
 *   `--seed=sql` inserts the points by SQL instead and times the ingest's end steps alone (the indexes, the pixel
 *   levels: the overview and its indexes, the extents) and prints the sizes of the table and its overview;
 * - tiles, SQL alone (`readTile`: its statement), the densest and a typical tile of each zoom, median of
 *   3, with bytes, features and whether thinned (over the feature cap), against 300 ms / 100 ms / 500 KB
 *   (docs/tiles.md); `--max-features=N` builds them with another feature cap than TILE_MAX_FEATURES;
 * - the whole layer as GeoJSON (`featureChunks`: short keyset statements), its time, statements and the
 *   slowest statement, against the statement timeout;
 * - the last page by `offset` and by `after`.
 * Prints the load average beside the figures. `--reuse` keeps a layer already seeded; `--zooms=0,3,...`;
 * `--ingest-only` stops after the ingest figures.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateToken } from '../lib/auth/tokens.ts';
import { createUser } from '../lib/auth/users.ts';
import { closeDb, createDb, type Db } from '../lib/db/index.ts';
import { type Geodataset, requireDataset, sqlTable } from '../lib/geodatasets/catalog.ts';
import { updateExtents } from '../lib/geodatasets/extents.ts';
import { createRankLevels, dropRankLevels, overviewName } from '../lib/geodatasets/rank.ts';
import { parseReadFilters } from '../lib/geodatasets/read/filters.ts';
import { featureChunks, readFeatureCollection } from '../lib/geodatasets/read/geojson.ts';
import { tileSettings } from '../lib/geodatasets/read/tileParams.ts';
import { readTile } from '../lib/geodatasets/tiles/readTile.ts';
import { recreateGeodataset } from '../lib/geodatasets/write/write.ts';
import { prepareDatabase } from '../local/devServer.ts';
import { copyThenIndex, sampleDatabaseMemory, uploadWithCli, writeScaleFile } from './scaleUpload.ts';
import { type ServiceProcess, startServiceProcess } from './serviceProcess.ts';

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const SIZES = (arg('points') ?? '1000000').split(',').map(Number);
const ZOOMS = (arg('zooms') ?? '0,3,6,9,12').split(',').map(Number);
const URL = process.env.DATABASE_URL;
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

async function timed<T>(run: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await run();
  return { ms: performance.now() - t0, value };
}

async function median<T>(n: number, run: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const runs: { ms: number; value: T }[] = [];
  for (let i = 0; i < n; i++) runs.push(await timed(run));
  runs.sort((a, b) => a.ms - b.ms);
  return runs[Math.floor(n / 2)];
}

/** A layer of n points made by SQL, then the ingest's end steps (indexes, pixel levels, extents) timed. */
async function seed(db: Db, n: number): Promise<Geodataset> {
  const name = `scale_${n}`;
  const one = { type: 'Feature', geometry: { type: 'Point', coordinates: [0, 0] }, properties: { n: 0 } };
  await recreateGeodataset(db, { type: 'FeatureCollection', features: [one] }, { name });
  const ds = await requireDataset(db.sql, name);
  const t = sqlTable(db.sql, ds);
  // The levels are made after the rows, as a load makes them (not row by row by their triggers).
  for (const trigger of ['insert', 'update', 'delete', 'truncate'])
    await db.sql`drop trigger if exists ${db.sql(`pixel_levels_${trigger}`)} on ${t}`;
  await dropRankLevels(db.sql, ds.table);
  await db.sql`truncate ${t}`;
  for (const index of await db.sql`select indexname from pg_indexes where tablename = ${ds.table} and indexname not like '%pkey'`)
    await db.sql`drop index ${db.sql(String(index.indexname))}`;
  const insert = await timed(
    () => db.sql`insert into ${t} (geom, properties)
      select case when i % 2 = 0
          then ST_SetSRID(ST_MakePoint(-125 + random() * 60, 25 + random() * 25), 4326)
          else ST_SetSRID(ST_MakePoint(-120 + (i % 40) * 1.3 + (random() + random() + random() - 1.5) * 0.4,
                                       28 + (i % 13) * 1.5 + (random() + random() + random() - 1.5) * 0.4), 4326) end,
        jsonb_build_object('n', i, 'f', i / 7.0, 's', 'name ' || i, 't', '2024-01-01T00:00:00Z', 'g', 'g' || (i % 1000))
      from generate_series(1, ${n}::int) i`,
  );
  const index = await timed(async () => {
    await db.sql`create index on ${t} using gist (geom)`;
  });
  await db.sql`update geodatasets set num_features = ${n} where id = ${ds.id}`;
  const rank = await timed(() => createRankLevels(db.sql, ds.table, n));
  await db.sql`analyze ${t}`;
  const extents = await timed(() => updateExtents(db.sql, ds));
  const [size] = await db.sql`select pg_total_relation_size(${ds.table}::regclass)::bigint as t,
      coalesce(pg_total_relation_size(to_regclass(${overviewName(ds.table)})), 0)::bigint as o`;
  const mib = (b: unknown) => `${(Number(b) / 2 ** 20).toFixed(0)} MiB`;
  console.log(`seed ${n}: table ${mib(size.t)} with its indexes, overview ${mib(size.o)} with its indexes`);
  console.log(
    `seed ${n}: insert ${(insert.ms / 1000).toFixed(1)} s, geom index ${(index.ms / 1000).toFixed(1)} s, pixel levels (overview, its indexes) ${(rank.ms / 1000).toFixed(1)} s, extents ${(extents.ms / 1000).toFixed(1)} s (load ${load()})`,
  );
  return requireDataset(db.sql, name);
}

/** Every figure beside its limit, printed as one table at the end (`summary.add` from each section). */
const summary: { size: number; figure: string; value: string; limit: string; load: string }[] = [];
function addFigure(size: number, figure: string, value: string, limit: string) {
  summary.push({ size, figure, value, limit, load: load() });
}

function printSummary() {
  console.log('\n| points | figure | measured | limit | load average |');
  console.log('|---|---|---|---|---|');
  for (const r of summary) console.log(`| ${r.size} | ${r.figure} | ${r.value} | ${r.limit} | ${r.load} |`);
}

/** What the upload seeding needs once per run: the service in its own process, an admin token, a folder. */
interface Uploader {
  svc: ServiceProcess;
  token: string;
  dir: string;
}

async function startUploader(db: Db, url: string): Promise<Uploader> {
  const svc = await startServiceProcess({ databaseUrl: url, env: { LOG_LEVEL: 'warn' } });
  const user = await createUser(db.sql, {
    username: `bench_${randomBytes(3).toString('hex')}`,
    password: randomBytes(12).toString('hex'),
    role: 'admin',
  });
  const token = (await generateToken(db.sql, user.id, { name: 'bench' })).token;
  return { svc, token, dir: mkdtempSync(join(tmpdir(), 'bench-scale-')) };
}

/**
 * The layer of n points by the upload path, timed end to end, beside COPY-then-index of the same rows
 * (reference first, then the upload), each with the database's private memory sampled (`db` samples,
 * `seedDb`, without a statement timeout, runs the reference).
 */
async function uploadSeed(db: Db, seedDb: Db, up: Uploader, n: number): Promise<Geodataset> {
  const name = `scale_${n}`;
  const file = join(up.dir, `${name}.json`);
  const database = new globalThis.URL(String(URL)).pathname.slice(1);
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  try {
    const bytes = await writeScaleFile(file, n);
    let mem = sampleDatabaseMemory(db, database);
    const ref = await copyThenIndex(seedDb, n);
    const refMB = await mem.stop();
    console.log(
      `COPY-then-index ${n}: ${s(ref.totalMs)} (COPY ${s(ref.copyMs)}, indexes ${s(ref.indexMs)}, pixel levels ${s(ref.rankMs)}), database memory ${refMB.toFixed(0)} MB (load ${load()})`,
    );
    mem = sampleDatabaseMemory(db, database);
    const { ms, startedAt } = await uploadWithCli(up.svc.url, up.token, file, name);
    const upMB = await mem.stop();
    await printUploadPhases(db, name, startedAt, ms);
    const ratio = ms / ref.totalMs;
    console.log(
      `upload ${n} (${(bytes / 1e6).toFixed(0)} MB file) end to end: ${s(ms)}, ${ratio.toFixed(2)}x COPY-then-index, database memory ${upMB.toFixed(0)} MB (load ${load()})`,
    );
    addFigure(
      n,
      'upload end to end ÷ COPY-then-index',
      `${s(ms)} ÷ ${s(ref.totalMs)} = ${ratio.toFixed(2)}`,
      '≤ 2',
    );
    addFigure(
      n,
      'database memory during the upload (RssAnon of its processes; COPY-then-index)',
      `${upMB.toFixed(0)} MB (${refMB.toFixed(0)} MB)`,
      '≤ 300 MB',
    );
  } finally {
    rmSync(file, { force: true });
  }
  return requireDataset(db.sql, name);
}

/**
 * Where an upload's time went, from its job's own timestamps (the database's clock, this machine's):
 * the CLI's start to the job's creation (the upload request), to the ingest's claim (the PUT and the
 * object's event), to the job's end (the ingest), to the CLI's exit (its last poll).
 */
async function printUploadPhases(db: Db, name: string, startedAt: number, ms: number) {
  const [job] = await db.sql`select created_at, started_at, finished_at from jobs
    where name = ${name} and kind = 'upload' order by created_at desc limit 1`;
  if (!job?.started_at || !job.finished_at) return;
  const at = (d: Date) => new Date(d).getTime() - startedAt;
  const created = at(job.created_at);
  const started = at(job.started_at);
  const finished = at(job.finished_at);
  const s = (x: number) => `${(x / 1000).toFixed(2)} s`;
  console.log(
    `upload ${name} phases: request ${s(created)}, PUT and event ${s(started - created)}, ingest ${s(finished - started)}, to the CLI's exit ${s(ms - finished)}`,
  );
}

/** The densest and a typical (median non-empty) tile of zoom z, by counting a 1/64 sample of the points. */
async function tilesOf(db: Db, ds: Geodataset, z: number) {
  const t = sqlTable(db.sql, ds);
  const rows = await db.sql`
    select x, y, count(*)::int as c from (
      select floor((ST_X(geom) + 180) / 360 * 2 ^ ${z}::int)::int as x,
             floor((1 - ln(tan(radians(ST_Y(geom))) + 1 / cos(radians(ST_Y(geom)))) / pi()) / 2 * 2 ^ ${z}::int)::int as y
      from ${t} where ((id * 2654435761::bigint) % 4294967296::bigint) < 67108864::bigint) s
    group by 1, 2 order by 3 desc`;
  const densest = rows[0];
  const typical = rows[Math.floor(rows.length / 2)];
  return { densest: { z, x: densest.x, y: densest.y }, typical: { z, x: typical.x, y: typical.y } };
}

async function main() {
  if (!URL)
    throw new Error('DATABASE_URL names the bench database (e.g. postgres://postgres@127.0.0.1:5432/scale)');
  await prepareDatabase(URL, undefined);
  const db = createDb({ url: URL, max: 2 });
  // Seeding a big layer runs statements longer than the service's timeout; the reads keep it.
  const seedDb = createDb({ url: URL, max: 1, statementTimeoutMs: 0 });
  const timeout = Number(process.env.STATEMENT_TIMEOUT_MS ?? 25000);
  let uploader: Uploader | undefined;
  try {
    for (const n of SIZES) {
      const kept = process.argv.includes('--reuse')
        ? await requireDataset(db.sql, `scale_${n}`).catch(() => undefined)
        : undefined;
      let ds = kept?.numFeatures === n ? kept : undefined;
      if (!ds && arg('seed') === 'sql') ds = await seed(seedDb, n);
      if (!ds) {
        uploader ??= await startUploader(db, URL);
        ds = await uploadSeed(db, seedDb, uploader, n);
      }
      if (process.argv.includes('--ingest-only')) continue;
      const all = parseReadFilters({});
      console.log(`\n${n} points (load ${load()})`);
      const settings = {
        ...tileSettings(),
        maxFeatures: Number(arg('max-features') ?? tileSettings().maxFeatures),
      };
      console.log(`feature cap ${settings.maxFeatures}`);
      console.log('| tile | SQL alone (limit) | bytes (limit) | features | thinned |');
      console.log('|---|---|---|---|---|');
      for (const z of ZOOMS) {
        const { densest, typical } = await tilesOf(db, ds, z);
        for (const [kind, a, limit] of [
          ['densest', densest, 300],
          ['typical', typical, 100],
        ] as const) {
          const r = await median(3, () => readTile(db, ds, a, db.sql`true`, { settings }));
          addFigure(
            n,
            `z${z} ${kind} tile ${a.z}/${a.x}/${a.y}, SQL alone (bytes)`,
            `${r.ms.toFixed(0)} ms (${r.value.bytes} B)`,
            `≤ ${limit} ms (≤ 500000 B)`,
          );
          console.log(
            `| z${z} ${kind} ${a.z}/${a.x}/${a.y} | ${r.ms.toFixed(0)} ms (${limit}) | ${r.value.bytes} (500000) | ${r.value.n} | ${r.value.thinned ? 'yes' : 'no'} |`,
          );
        }
      }
      let statements = 0;
      let slowest = 0;
      let bytes = 0;
      let last = performance.now();
      const whole = await timed(async () => {
        for await (const c of featureChunks(db.sql, ds, all, { offset: 0 })) {
          const now = performance.now();
          slowest = Math.max(slowest, now - last);
          last = now;
          statements++;
          bytes += Buffer.byteLength(c.text);
        }
      });
      addFigure(
        n,
        'whole layer as short keyset statements: time (slowest statement)',
        `${(whole.ms / 1000).toFixed(1)} s (${slowest.toFixed(0)} ms)`,
        `slowest < ${timeout} ms; over EXPORT_ABOVE_FEATURES an export job (bench:export)`,
      );
      console.log(
        `whole layer: ${(whole.ms / 1000).toFixed(1)} s, ${(bytes / 2 ** 20).toFixed(0)} MiB in ${statements} statements, slowest ${slowest.toFixed(0)} ms (statement timeout ${timeout} ms) (load ${load()})`,
      );
      const [{ max }] = await db.sql`select max(id)::bigint as max from ${sqlTable(db.sql, ds)}`;
      const byOffset = await median(3, () =>
        readFeatureCollection(db.sql, ds, all, { offset: n - 1000, limit: 1000 }),
      );
      const byKey = await median(3, () =>
        readFeatureCollection(db.sql, ds, all, { offset: 0, after: Number(max) - 1000, limit: 1000 }),
      );
      addFigure(
        n,
        'last page of 1,000: by offset (by after)',
        `${byOffset.ms.toFixed(0)} ms (${byKey.ms.toFixed(0)} ms)`,
        'after: flat with the size',
      );
      console.log(
        `last page of 1000: offset ${byOffset.ms.toFixed(0)} ms, after ${byKey.ms.toFixed(0)} ms (load ${load()})`,
      );
    }
    printSummary();
  } finally {
    await uploader?.svc.stop();
    if (uploader) rmSync(uploader.dir, { recursive: true, force: true });
    await db.end();
    await seedDb.end();
    await closeDb();
  }
}

await main();
