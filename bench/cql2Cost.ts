/**
 * Calibration of the CQL2 cost model (docs/cql2.md, "Cost"): on 20,000 seeded points (BENCH_POINTS), each
 * filter shape of `SHAPES` with 1 and `ARMS` OR-ed arms (each false for almost every feature, so every arm
 * is evaluated: the worst case the estimate bounds) is compiled (its SQL text measured as the Data API
 * sees it), estimated (`estimateCost`: units, or the 400), and timed as `count(*)` under the condition
 * (median of 3, minus the scan without a filter), on a fresh database of the PostGIS server of
 * DATABASE_URL and on a fresh embedded PGlite. Prints, per shape: SQL characters per arm, the estimate,
 * the time, and the measured µs per feature per arm, from which the weights of lib/cql2/costWeights.ts
 * are set (one unit is about 0.1 µs on the embedded database).
 * Run: `node scripts/build.mjs && node dist/bench/cql2Cost.js` (BENCH_SKIP_SERVER=1 or
 * BENCH_SKIP_EMBEDDED=1 to run one side).
 */
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import postgres from 'postgres';
import { compileCql2 } from '../lib/cql2/compile.ts';
import { parseFilterParams } from '../lib/cql2/filter.ts';
import { createDb, type Db } from '../lib/db/index.ts';
import { sqlTextOf } from '../lib/db/sqlText.ts';
import { type Geodataset, requireDataset, sqlTable } from '../lib/geodatasets/catalog.ts';
import { estimateCost } from '../lib/geodatasets/read/cql2/cost.ts';
import { readQueryables } from '../lib/geodatasets/read/cql2/queryables.ts';
import { cql2ReadFilter, cql2Target } from '../lib/geodatasets/read/cql2/readFilter.ts';
import { parseReadFilters, sqlWhere } from '../lib/geodatasets/read/filters.ts';
import { recreateGeodataset } from '../lib/geodatasets/write/write.ts';
import { prepareDatabase } from '../local/devServer.ts';
import { startEmbedded } from '../local/embedded/start.ts';
import { featureCollectionText, points } from './data.ts';

const N = Number(process.env.BENCH_POINTS ?? 20_000);
const ARMS = Number(process.env.BENCH_ARMS ?? 10);
const LAYER = 'bench_cql2_cost';

/** A filter shape: its arm `i` (arms differ by their literal, so none is folded into another). */
const SHAPES: [string, (i: number) => string][] = [
  ['t < TIMESTAMP (a time property)', (i) => `t < TIMESTAMP('2023-0${1 + (i % 9)}-01T00:00:${10 + i}Z')`],
  ['t < DATE', (i) => `t < DATE('2023-0${1 + (i % 9)}-${10 + (i % 19)}')`],
  ['n > number', (i) => `n > ${2_000_000 + i}`],
  ['n BETWEEN', (i) => `n BETWEEN ${-1000 - i} AND -1`],
  ["s = 'text'", (i) => `s = 'other-${i}'`],
  ["s LIKE 'pattern%'", (i) => `s LIKE 'other-${i}%'`],
  ['CASEI(s) = CASEI(text)', (i) => `CASEI(s) = CASEI('OTHER-${i}')`],
  ['n IN (5 numbers)', (i) => `n IN (${-i}, ${-i - 1}, ${-i - 2}, ${-i - 3}, ${-i - 4})`],
  ['s IS NULL', (i) => (i % 2 ? 's IS NULL' : 'n IS NULL')],
  ['n = f (two properties)', (i) => (i % 2 ? 'n = f' : 'f = n')],
  [
    'T_INTERSECTS(INTERVAL(t, t), INTERVAL)',
    (i) => `T_INTERSECTS(INTERVAL(t, t), INTERVAL('2023-01-${10 + (i % 19)}', '2023-02-01'))`,
  ],
  [
    'T_BEFORE(start_time, TIMESTAMP) (a column)',
    (i) => `T_BEFORE(start_time, TIMESTAMP('2023-05-01T00:00:${10 + i}Z'))`,
  ],
  ['id < number (a column)', (i) => `id < ${-i}`],
  [
    'S_INTERSECTS(geometry, BBOX)',
    (i) => `S_INTERSECTS(geometry, BBOX(${-179 + i}, -89, ${-178.99 + i}, -88.99))`,
  ],
];

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function timeCount(db: Db, ds: Geodataset, where: ReturnType<typeof sqlWhere>): Promise<number> {
  const ms: number[] = [];
  for (let r = 0; r < 3; r++) {
    const t0 = performance.now();
    await db.sql`select count(*)::int as n from ${sqlTable(db.sql, ds)} t where ${where}`;
    ms.push(performance.now() - t0);
  }
  return median(ms);
}

async function suite(url: string, label: string): Promise<void> {
  const db = createDb({ url, max: 2, statementTimeoutMs: 600_000 });
  try {
    await prepareDatabase(url, undefined);
    await recreateGeodataset(db, featureCollectionText(points(N, 1)), { name: LAYER, startProp: 't' });
    const ds = await requireDataset(db.sql, LAYER);
    const q = await readQueryables(db.sql, ds);
    const base = parseReadFilters({});
    const scan = await timeCount(db, ds, sqlWhere(db.sql, ds, base, 't'));
    console.log(
      `\n${label}: ${N} points; count(*) with no filter ${scan.toFixed(1)} ms; load ${loadavg()[0].toFixed(1)}`,
    );
    console.log(
      '| shape | arms | SQL chars | units per feature | estimate (units) | ms | µs per feature | µs per unit |',
    );
    console.log('|---|---|---|---|---|---|---|---|');
    for (const [name, arm] of SHAPES) {
      for (const k of [1, ARMS]) {
        const text = Array.from({ length: k }, (_, i) => arm(i)).join(' OR ');
        const filter = parseFilterParams({ filter: text })!;
        const { condition: cond, unitsPerFeature } = await cql2ReadFilter(db.sql, ds, filter);
        let estimate: string;
        try {
          estimate = Math.round(
            await estimateCost(db.sql, ds, filter.ast, filter.crs, unitsPerFeature),
          ).toLocaleString('en-US');
        } catch (e) {
          estimate = `400 (${(e as Error).message.match(/about ([\d,]+) units/)?.[1] ?? 'refused'})`;
        }
        const chars = sqlTextOf((s) => compileCql2(filter.ast, cql2Target(s, ds, q, 't'), filter.crs)).length;
        const ms = await timeCount(db, ds, sqlWhere(db.sql, ds, { ...base, cql2: cond }, 't'));
        const us = ((ms - scan) / N) * 1000;
        const perUnit = unitsPerFeature ? (us / unitsPerFeature).toFixed(3) : '-';
        console.log(
          `| ${name} | ${k} | ${chars} | ${unitsPerFeature} | ${estimate} | ${ms.toFixed(0)} | ${us.toFixed(2)} | ${perUnit} |`,
        );
      }
    }
  } finally {
    await db.end();
  }
}

async function main(): Promise<void> {
  console.log(
    `load average at start: ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}`,
  );
  if (process.env.BENCH_SKIP_SERVER !== '1') {
    const serverUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
    const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
    const name = `mmgis_bench_cql2cost_${Date.now()}_${randomBytes(2).toString('hex')}`;
    try {
      await admin.unsafe(`create database ${name}`);
      const u = new URL(serverUrl);
      u.pathname = `/${name}`;
      await suite(u.toString(), 'PostGIS server');
    } finally {
      await admin.unsafe(`drop database if exists ${name} with (force)`).catch(() => {});
      await admin.end();
    }
  }
  if (process.env.BENCH_SKIP_EMBEDDED !== '1') {
    const emb = await startEmbedded('memory://');
    try {
      await suite(emb.url, 'embedded PGlite');
    } finally {
      await emb.stop();
    }
  }
  console.log(
    `\nload average at end: ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}`,
  );
}

await main();
