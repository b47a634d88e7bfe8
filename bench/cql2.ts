/**
 * CQL2 filter bench (docs/cql2.md, docs/benchmarks.md): prints
 * 1. parse time of the standard's examples (tests/fixtures/cql2), cql2-text and cql2-json, and the compile
 *    time of a typical filter (no database: the SQL is built, not run);
 * 2. on a fresh database with N_POINTS seeded points: the queryables read (first time, then cached), and
 *    the database time of a count under a CQL2 filter against the same condition as legacy `filters`.
 * Run: `npm run build && node dist/bench/cql2.js` (DATABASE_URL: a PostGIS server; a database is created
 * and dropped).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import postgres from 'postgres';
import { parseCql2, parseFilterParams } from '../lib/cql2/filter.ts';
import { createDb } from '../lib/db/index.ts';
import { requireDataset, sqlTable } from '../lib/geodatasets/catalog.ts';
import { readQueryables } from '../lib/geodatasets/read/cql2/queryables.ts';
import { cql2ReadFilter } from '../lib/geodatasets/read/cql2/readFilter.ts';
import {
  parseReadFilters,
  type ReadFilters,
  resolveReadFilters,
  sqlWhere,
} from '../lib/geodatasets/read/filters.ts';
import { recreateGeodataset } from '../lib/geodatasets/write/write.ts';
import { prepareDatabase } from '../local/devServer.ts';
import { featureCollectionText, points } from './data.ts';

const N_POINTS = Number(process.env.BENCH_POINTS ?? 50_000);
const LAYER = 'bench_cql2';

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function timed(n: number, f: () => Promise<unknown>): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await f();
    ms.push(performance.now() - t0);
  }
  return median(ms);
}

function parseBench(): void {
  const url = new URL('../tests/fixtures/cql2/examples.json', import.meta.url);
  let text: string;
  try {
    text = readFileSync(url, 'utf8');
  } catch {
    text = readFileSync('tests/fixtures/cql2/examples.json', 'utf8');
  }
  const examples: { text: string; json: unknown }[] = JSON.parse(text);
  const jsonTexts = examples.map((e) => JSON.stringify(e.json));
  const rounds = 200;
  for (const [label, run] of [
    ['cql2-text', () => examples.map((e) => parseCql2(e.text, 'cql2-text'))],
    ['cql2-json', () => jsonTexts.map((j) => parseCql2(j, 'cql2-json'))],
  ] as const) {
    run();
    const t0 = performance.now();
    for (let i = 0; i < rounds; i++) run();
    const us = ((performance.now() - t0) * 1000) / (rounds * examples.length);
    console.log(`parse ${label}: ${us.toFixed(1)} µs per example (${examples.length} examples x ${rounds})`);
  }
}

async function main() {
  parseBench();
  const serverUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  const dbName = `mmgis_bench_cql2_${Date.now()}_${randomBytes(2).toString('hex')}`;
  await admin.unsafe(`create database ${dbName}`);
  const u = new URL(serverUrl);
  u.pathname = `/${dbName}`;
  const url = u.toString();
  const db = createDb({ url, max: 2, statementTimeoutMs: 600_000 });
  try {
    await prepareDatabase(url, undefined);
    let t0 = performance.now();
    await recreateGeodataset(db, featureCollectionText(points(N_POINTS, 1)), { name: LAYER, startProp: 't' });
    console.log(`data: ${N_POINTS} points loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const ds = await requireDataset(db.sql, LAYER);
    const table = sqlTable(db.sql, ds);

    const text =
      "n > 500000 AND s IN ('name-1', 'name-2', 'name-3') OR S_INTERSECTS(geometry, BBOX(-118, 34, -117.9, 34.1))";
    const filter = parseFilterParams({ filter: text })!;
    const base = await resolveReadFilters(db.sql, parseReadFilters({}));
    // The condition alone (the cost bound is bench/cql2Cost.ts's subject; 50,000 features pass it only in
    // the keyset statements of a GeoJSON read).
    const f = { ...base, cql2: (await cql2ReadFilter(db.sql, ds, filter)).condition };
    const rounds = 2000;
    t0 = performance.now();
    for (let i = 0; i < rounds; i++) sqlWhere(db.sql, ds, f, 't');
    console.log(
      `compile a 3-predicate filter to SQL: ${(((performance.now() - t0) * 1000) / rounds).toFixed(1)} µs`,
    );

    // A state not read yet (the cache is keyed by dataset version), then the cached one.
    const first = await timed(1, () => readQueryables(db.sql, { ...ds, version: ds.version + 1000 }));
    const again = await timed(20, () => readQueryables(db.sql, ds));
    console.log(
      `queryables: first read of a dataset state (1000 rows sampled) ${first.toFixed(1)} ms; cached ${again.toFixed(3)} ms (median of 20)`,
    );

    const count = (ff: ReadFilters) =>
      db.sql`select count(*)::int as n from ${table} t where ${sqlWhere(db.sql, ds, ff, 't')}`;
    const cql: ReadFilters = {
      ...base,
      cql2: (await cql2ReadFilter(db.sql, ds, parseFilterParams({ filter: 'n > 500000 AND f < 0' })!))
        .condition,
    };
    const legacy = await resolveReadFilters(
      db.sql,
      parseReadFilters({ filters: 'n+>+number+500000,f+<+number+0' }),
    );
    const [[a], [b]] = await Promise.all([count(cql), count(legacy)]);
    if (a.n !== b.n) throw new Error(`the two filters disagree: ${a.n} vs ${b.n}`);
    const cqlMs = await timed(10, () => count(cql));
    const legacyMs = await timed(10, () => count(legacy));
    console.log(
      `count under "n > 500000 AND f < 0" (${a.n} rows of ${N_POINTS}): CQL2 ${cqlMs.toFixed(1)} ms, legacy filters ${legacyMs.toFixed(1)} ms (median of 10)`,
    );
  } finally {
    await db.end();
    await admin.unsafe(`drop database if exists ${dbName} with (force)`).catch(() => {});
    await admin.end();
  }
}

await main();
