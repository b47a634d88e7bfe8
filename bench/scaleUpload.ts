/**
 * The ingest half of `npm run bench:scale` (bench/scale.ts): the scale layer's points as a GeoJSON file,
 * uploaded end to end through the local service exactly as `npm run upload` does it (bin/upload.mjs run as
 * a child: POST /api/geodatasets/upload, PUT to the S3 stand-in, the ingest job polled), beside the
 * database's own reference for the same rows in the same run (COPY into a bare table, then the indexes the
 * layer ends with), with the database's memory sampled during each.
 */
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { Db } from '../lib/db/index.ts';
import { createDatasetIndexes, createDatasetTable, safeTable } from '../lib/geodatasets/catalog.ts';
import { createRankLevels, dropRankLevels } from '../lib/geodatasets/rank.ts';
import { copyRows, copyText } from './copyRows.ts';
import { random } from './data.ts';

/** The derived columns the upload sets (and the reference fills the same way). */
export const SCALE_OPTIONS = { startProp: 't', groupIdProp: 'g' };

interface ScalePoint {
  x: number;
  y: number;
  p: { n: number; f: number; s: string; t: string; g: string };
}

/**
 * Point i of a scale layer: even ones uniform over a continent-size box (-125..-65 by 25..50), odd ones
 * in 520 Gaussian-ish clusters (the sum of three uniforms) on a grid; seeded, so the file and the
 * reference hold the same rows.
 */
export function* scalePoints(n: number, seed = 7): Generator<ScalePoint> {
  const r = random(seed);
  const g = () => (r() + r() + r() - 1.5) * 0.4;
  for (let i = 1; i <= n; i++) {
    const x = i % 2 === 0 ? -125 + r() * 60 : -120 + (i % 40) * 1.3 + g();
    const y = i % 2 === 0 ? 25 + r() * 25 : 28 + (i % 13) * 1.5 + g();
    yield {
      x: Math.round(x * 1e6) / 1e6,
      y: Math.round(y * 1e6) / 1e6,
      p: { n: i, f: i / 7, s: `name ${i}`, t: '2024-01-01T00:00:00Z', g: `g${i % 1000}` },
    };
  }
}

/** Writes the n points as a FeatureCollection file; resolves with its size in bytes. */
export async function writeScaleFile(file: string, n: number): Promise<number> {
  const out = createWriteStream(file);
  let bytes = 0;
  const write = (s: string) =>
    new Promise<void>((ok) => {
      bytes += Buffer.byteLength(s);
      if (out.write(s)) ok();
      else out.once('drain', ok);
    });
  await write('{"type":"FeatureCollection","features":[\n');
  let buf: string[] = [];
  let first = true;
  for (const q of scalePoints(n)) {
    buf.push(
      `${first ? '' : ',\n'}{"type":"Feature","geometry":{"type":"Point","coordinates":[${q.x},${q.y}]},"properties":${JSON.stringify(q.p)}}`,
    );
    first = false;
    if (buf.length === 10000) {
      await write(buf.join(''));
      buf = [];
    }
  }
  await write(`${buf.join('')}\n]}\n`);
  await new Promise<void>((ok, fail) => out.end((e?: Error | null) => (e ? fail(e) : ok())));
  return bytes;
}

/**
 * Private memory of a database's server processes: every ~100 ms, the `RssAnon` (anonymous resident
 * memory, /proc/<pid>/status: what a backend allocates for itself, the shared buffers excluded) of each
 * process `pg_stat_activity` lists for `database` (its backends and their parallel workers), summed.
 * Needs the server on this machine and /proc readable. `peakMB` is the largest sum seen.
 */
export function sampleDatabaseMemory(db: Db, database: string) {
  let pids: number[] = [];
  let peak = 0;
  let stopped = false;
  const rssAnon = async (pid: number) => {
    try {
      const m = /RssAnon:\s+(\d+) kB/.exec(await readFile(`/proc/${pid}/status`, 'utf8'));
      return m ? Number(m[1]) * 1024 : 0;
    } catch {
      return 0;
    }
  };
  const list = async () => {
    const rows = await db.sql`select pid from pg_stat_activity where datname = ${database}`;
    pids = rows.map((r) => Number(r.pid)).filter((p) => p !== 0);
  };
  const loop = (async () => {
    let tick = 0;
    while (!stopped) {
      if (tick++ % 10 === 0) await list().catch(() => {});
      const sizes = await Promise.all(pids.map(rssAnon));
      peak = Math.max(
        peak,
        sizes.reduce((a, b) => a + b, 0),
      );
      await new Promise((ok) => setTimeout(ok, 100));
    }
  })();
  return {
    async stop(): Promise<number> {
      stopped = true;
      await loop;
      return peak / 2 ** 20;
    },
  };
}

export interface ReferenceTimes {
  copyMs: number;
  indexMs: number;
  rankMs: number;
  totalMs: number;
}

/**
 * COPY-then-index of the same n points: a bare layer table (createDatasetTable), the rows by COPY with the
 * derived columns the upload sets, then the layer's indexes (createDatasetIndexes) and its pixel levels
 * (createRankLevels): the state the upload ends in, by the database's fastest path. Dropped after.
 */
export async function copyThenIndex(db: Db, n: number): Promise<ReferenceTimes> {
  const table = 'gd_0_1';
  const t = safeTable(table);
  await db.sql.unsafe(`drop table if exists ${t}`);
  await dropRankLevels(db.sql, table);
  await createDatasetTable(db.sql, table);
  const t0 = performance.now();
  const lines = function* () {
    for (const q of scalePoints(n))
      yield `SRID=4326;POINT(${q.x} ${q.y})\t${copyText(JSON.stringify(q.p))}\t${q.p.t}\t${q.p.g}\n`;
  };
  await copyRows(db, `copy ${t} (geom, properties, start_time, group_id) from stdin`, lines());
  const t1 = performance.now();
  await createDatasetIndexes(db.sql, table);
  const t2 = performance.now();
  await createRankLevels(db.sql, table, n);
  const t3 = performance.now();
  await db.sql.unsafe(`drop table ${t}`);
  await dropRankLevels(db.sql, table);
  return { copyMs: t1 - t0, indexMs: t2 - t1, rankMs: t3 - t2, totalMs: t3 - t0 };
}

/**
 * `npm run upload -- FILE --name NAME ...` against the service at `api`: bin/upload.mjs in a child
 * process, timed from its start to its exit, and the wall clock at its start (to place the job's own
 * timestamps). Rejects unless the job succeeded.
 */
export function uploadWithCli(
  api: string,
  token: string,
  file: string,
  name: string,
): Promise<{ ms: number; startedAt: number }> {
  const script = new URL('../../bin/upload.mjs', import.meta.url).pathname;
  const args = [script, file, '--name', name, '--url', api, '--quiet'];
  args.push('--start-prop', SCALE_OPTIONS.startProp, '--group-id-prop', SCALE_OPTIONS.groupIdProp);
  return new Promise((ok, fail) => {
    const t0 = performance.now();
    const startedAt = Date.now();
    const p = spawn(process.execPath, args, {
      env: { ...process.env, MMGIS_TOKEN: token },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    p.stdout.on('data', (d) => {
      out += d;
    });
    p.on('exit', (code) =>
      code === 0
        ? ok({ ms: performance.now() - t0, startedAt })
        : fail(new Error(`upload exited ${code}: ${out.slice(-500)}`)),
    );
  });
}
