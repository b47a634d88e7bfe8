/**
 * `npm run bench:source` — time of `GET /get` with many `_source` paths (docs/geodatasets-read.md, "_source").
 * On the PostGIS server (DATABASE_URL or the local default), in a fresh database created and dropped here:
 * 2,000 features with nested properties; for each path count, the lib function the handler calls is run in a
 * child process (killed after BENCH_SOURCE_TIMEOUT_MS, default 60 s, since a query builder that grows
 * exponentially blocks the event loop) and the wall time of the read is printed, or the failure.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { createDb } from '../lib/db/index.ts';
import { requireDataset } from '../lib/geodatasets/catalog.ts';
import { parseReadFilters } from '../lib/geodatasets/read/filters.ts';
import { parseGeojsonOptions, readFeatureCollection } from '../lib/geodatasets/read/geojson.ts';
import { recreateGeodataset } from '../lib/geodatasets/write/write.ts';
import { prepareDatabase } from '../local/devServer.ts';
import { getInput } from '../tests/fixtures/getInput.ts';

const LAYER = 'bench_source_paths';
const N_FEATURES = 2000;
const COUNTS = (process.env.BENCH_SOURCE_COUNTS ?? '5,10,12,15,25,50,100').split(',').map(Number);
const TIMEOUT_MS = Number(process.env.BENCH_SOURCE_TIMEOUT_MS) || 60_000;
const self = fileURLToPath(import.meta.url);

/** Paths `p0`, `n.p1`, `n.m.p2`, ... (a third of them nested one or two levels). */
function paths(n: number): string[] {
  return Array.from({ length: n }, (_, i) => (i % 3 === 0 ? `p${i}` : i % 3 === 1 ? `n.p${i}` : `n.m.p${i}`));
}

function feature(i: number) {
  const props: Record<string, any> = { n: { m: {} } };
  for (let k = 0; k < 100; k++) {
    if (k % 3 === 0) props[`p${k}`] = i + k;
    else if (k % 3 === 1) props.n[`p${k}`] = `v${k}`;
    else props.n.m[`p${k}`] = k;
  }
  return {
    type: 'Feature',
    geometry: { type: 'Point', coordinates: [(i % 360) - 180, (i % 170) - 85] },
    properties: props,
  };
}

async function child(url: string, n: number) {
  const db = createDb({ url, max: 1, statementTimeoutMs: TIMEOUT_MS });
  try {
    const ds = await requireDataset(db.sql, LAYER);
    const params = { _source: paths(n).join(',') };
    const t0 = performance.now();
    const text = await readFeatureCollection(
      db.sql,
      ds,
      parseReadFilters(getInput(params)),
      parseGeojsonOptions(getInput(params)),
    );
    const ms = performance.now() - t0;
    const fc = JSON.parse(text);
    console.log(JSON.stringify({ ms, features: fc.features.length }));
  } catch (e) {
    console.log(JSON.stringify({ error: (e as Error).message.slice(0, 120) }));
  } finally {
    await db.end();
  }
}

function runCase(
  url: string,
  n: number,
): Promise<{ ms?: number; features?: number; error?: string; wall: number }> {
  return new Promise((ok) => {
    const t0 = performance.now();
    const p = spawn(process.execPath, [self, '--child', url, String(n)], {
      env: { ...process.env, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    p.stdout.on('data', (d) => {
      out += d;
    });
    const timer = setTimeout(() => p.kill('SIGKILL'), TIMEOUT_MS);
    p.on('exit', () => {
      clearTimeout(timer);
      const wall = performance.now() - t0;
      try {
        ok({ ...JSON.parse(out.trim().split('\n').pop() ?? ''), wall });
      } catch {
        ok({ error: `killed after ${TIMEOUT_MS} ms`, wall });
      }
    });
  });
}

async function main() {
  if (process.argv[2] === '--child') return child(process.argv[3], Number(process.argv[4]));
  const serverUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  const dbName = `mmgis_bench_source_${Date.now()}_${randomBytes(2).toString('hex')}`;
  await admin.unsafe(`create database ${dbName}`);
  const u = new URL(serverUrl);
  u.pathname = `/${dbName}`;
  const url = u.toString();
  const db = createDb({ url, max: 1 });
  try {
    await prepareDatabase(url, undefined);
    const features = Array.from({ length: N_FEATURES }, (_, i) => feature(i));
    await recreateGeodataset(db, { type: 'FeatureCollection', features }, { name: LAYER });
    console.log(`${N_FEATURES} features, _source with n paths (child process, timeout ${TIMEOUT_MS} ms)`);
    console.log('paths | read ms | process wall ms | result');
    for (const n of COUNTS) {
      const r = await runCase(url, n);
      console.log(
        `${n} | ${r.ms === undefined ? '-' : r.ms.toFixed(1)} | ${r.wall.toFixed(0)} | ${r.error ?? `${r.features} features`}`,
      );
    }
  } finally {
    await db.end();
    await admin.unsafe(`drop database if exists ${dbName} with (force)`).catch(() => {});
    await admin.end();
  }
}

await main();
