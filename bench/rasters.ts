/**
 * `npm run bench:rasters` — the raster and CSV figures (docs/utils.md, docs/datasets.md):
 * - a 1000-step great-circle profile across a 10,000 × 10,000 Float32 GeoTIFF, tiled 256 × 256 and
 *   deflate-compressed, written here with the project's tiled writer and read with geotiff.js through the
 *   mission storage (a local folder): bytes read, range reads, time, and bytes read / file size;
 * - a 10,000-row CSV parsed and stored (replace), then `get` of one value: time and peak RSS, in a child
 *   process (so the RSS is its own) on the embedded database, or the server named by DATABASE_URL.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCsv } from '../lib/datasets/csv.ts';
import { runQueries } from '../lib/datasets/query.ts';
import { writeDataset } from '../lib/datasets/store.ts';
import { closeDb, createDb } from '../lib/db/index.ts';
import { getProfile } from '../lib/rasters/profile.ts';
import { folderStorage } from '../lib/storage/storage.ts';
import { prepareDatabase } from '../local/devServer.ts';
import { writeTiledTiff } from '../tests/fixtures/rasters.ts';
import { runChild } from './child.ts';

const SIZE = Number(process.env.BENCH_RASTER_SIZE) || 10_000;
const STEPS = 1000;
const ROWS = Number(process.env.BENCH_CSV_ROWS) || 10_000;
const self = fileURLToPath(import.meta.url);
const mb = (b: number) => Math.round((b / 1024 / 1024) * 10) / 10;

async function profileBench(dir: string) {
  const file = join(dir, 'dem.tif');
  let t = performance.now();
  // A smooth "terrain" (compresses like a DEM) over 0–10°E, 0–10°N.
  writeTiledTiff(file, {
    width: SIZE,
    height: SIZE,
    bands: 1,
    tile: 256,
    level: 1,
    epsg: 4326,
    geographic: true,
    origin: [0, 10],
    pixel: [10 / SIZE, 10 / SIZE],
    nodata: -9999,
    value: (c, r) => Math.round(1000 * Math.sin(c / 500) * Math.cos(r / 700)) / 4,
  });
  const writeMs = performance.now() - t;
  const size = statSync(file).size;
  const storage = folderStorage(dir);
  const input = { key: 'dem.tif', lat1: 9.95, lon1: 0.05, lat2: 0.05, lon2: 9.95, steps: STEPS, xyz: false };
  const runs = [];
  for (let i = 0; i < 3; i++) {
    t = performance.now();
    const r = await getProfile(storage, async () => null, input);
    runs.push({
      ms: Math.round(performance.now() - t),
      bytesRead: r.bytesRead,
      reads: r.reads,
      points: r.body.length,
    });
  }
  const first = runs[0];
  console.log(
    `profile: ${SIZE}x${SIZE} Float32 COG, 256 px deflate tiles, ${mb(size)} MB (written in ${Math.round(writeMs)} ms)`,
  );
  for (const r of runs) {
    console.log(
      `  ${r.points} steps: ${r.ms} ms, ${r.reads} range reads, ${r.bytesRead} bytes read (${mb(r.bytesRead)} MB), ` +
        `ratio to file size ${(r.bytesRead / size).toFixed(5)} (${((100 * r.bytesRead) / size).toFixed(2)} %)`,
    );
  }
  return { fileBytes: size, ...first };
}

/** In the child: parse and store ROWS rows, then get one value; report times and peak RSS. */
async function csvChild(url: string) {
  const db = createDb({ url, max: 2 });
  const lines = ['id,site,value,note'];
  for (let i = 0; i < ROWS; i++)
    lines.push(`${i},S${i % 97},${(i * 0.37).toFixed(2)},"row ${i}, with a comma"`);
  const text = `${lines.join('\r\n')}\r\n`;
  const rssBefore = process.memoryUsage().rss;
  // Sampled peak: ru_maxrss of a spawned child can carry the parent's high-water mark over exec.
  let peak = rssBefore;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  let t = performance.now();
  const table = parseCsv(text);
  await writeDataset(db, 'bench_csv', table, 'replace');
  const uploadMs = performance.now() - t;
  t = performance.now();
  const [answer] = await runQueries(db.sql, [
    { dataset: 'bench_csv', column: 'id', search: String(ROWS - 7) },
  ]);
  const getMs = performance.now() - t;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  await db.end();
  await closeDb();
  const out = {
    bytes: Buffer.byteLength(text),
    uploadMs: Math.round(uploadMs),
    getMs: Math.round(getMs * 10) / 10,
    found: answer.results.length,
    rssBeforeMB: mb(rssBefore),
    peakRssMB: mb(peak),
  };
  console.log(JSON.stringify(out));
}

async function main() {
  if (process.argv[2] === '--child') return csvChild(process.argv[3]);
  console.log(
    `machine: ${cpus().length} cores, load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  const dir = mkdtempSync(join(tmpdir(), 'bench-rasters-'));
  try {
    if (process.env.BENCH_SKIP_PROFILE !== '1') await profileBench(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const server = process.env.DATABASE_URL;
  const { url, embedded } = await prepareDatabase(server, server ? undefined : 'memory://');
  try {
    for (let i = 0; i < 2; i++) {
      const r = await runChild<Record<string, number>>(self, [url], {}, 'csv');
      console.log(
        `csv (${server ? 'server' : 'embedded'}): ${ROWS} rows, ${mb(r.bytes)} MB: upload ${r.uploadMs} ms, ` +
          `get one value ${r.getMs} ms (${r.found} row), peak RSS ${r.peakRssMB} MB (${r.rssBeforeMB} MB before)`,
      );
    }
  } finally {
    await embedded?.stop();
  }
}

await main();
