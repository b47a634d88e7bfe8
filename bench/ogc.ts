/**
 * `npm run bench:ogc` — the OGC API – Features figures of docs/ogc.md on the PostGIS server (DATABASE_URL
 * or the local default), in a fresh database created and dropped here, with the read bench's seeded
 * 200,000 points, through the local service (serverless-offline):
 * - items pages of 1,000 features over HTTP (following the next links, and one deep page), and through
 *   the items handler invoked in-process (no HTTP, as bench/read.ts measures handlers), against the
 *   same SQL alone (`readItemsChunks`: the statement the handler sends, through the driver with the same
 *   cursor, its rows the texts the handler answers). The pages are asked as a browser asks them
 *   (bench/httpClient.ts: `node:http`, keep-alive, `Accept-Encoding`); the HTTP time ends when the client
 *   holds the answer's bytes; the client's decoding and JSON.parse are timed apart and reported on
 *   their own row, as they are no cost of the service (the walk of pages of 10,000 includes them);
 * - a full copy of the layer by GDAL (`ogr2ogr` to a GeoPackage, pages of 10,000) against
 *   `GET /api/geodatasets/get` of the whole layer (by `fetch`, which follows the 303 to the S3 stand-in), with where GDAL's
 *   time goes: the same read into GDAL's Memory driver (nothing written), and GDAL reading the whole
 *   layer's GeoJSON from a local file (its own parse, no HTTP).
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { handler as itemsHandler } from '../functions/ogc/items.ts';
import { createDb, type Db } from '../lib/db/index.ts';
import { requireDataset } from '../lib/geodatasets/catalog.ts';
import type { ReadFilters } from '../lib/geodatasets/read/filters.ts';
import { recreateGeodataset } from '../lib/geodatasets/write/write.ts';
import { CRS84 } from '../lib/ogc/crs.ts';
import { readItemsChunks } from '../lib/ogc/items.ts';
import { prepareDatabase } from '../local/devServer.ts';
import { featureCollectionText, points } from './data.ts';
import { request } from './httpClient.ts';
import { startServiceProcess } from './serviceProcess.ts';

const N_POINTS = Number(process.env.BENCH_POINTS) || 200_000;
const PAGES = 20;
const LAYER = 'bench_ogc_points';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function run(tool: string, args: string[]): Promise<void> {
  return new Promise((ok, fail) =>
    execFile(tool, args, { maxBuffer: 64 * 1024 * 1024, timeout: 1_800_000 }, (e, _out, err) =>
      e ? fail(new Error(`${tool}: ${err.slice(-500)}`)) : ok(),
    ),
  );
}

/**
 * The statement of one items page, through the driver as the handler sends it (`readItemsChunks`: the
 * same statement, the same cursor): the features after `after`, as the texts the handler answers.
 */
async function sqlPage(db: Db, after: number): Promise<{ ms: number; last: number }> {
  const ds = await requireDataset(db.sql, LAYER);
  const f: ReadFilters = { filters: [], noDuplicates: false };
  const t0 = performance.now();
  const texts: string[] = [];
  let last = Number.NaN;
  for await (const c of readItemsChunks(db.sql, ds, f, { limit: 1000, after, crs: CRS84 })) {
    if (c.f !== null) texts.push(c.f);
    last = Number(c.last);
  }
  const ms = performance.now() - t0;
  if (!texts.length) throw new Error('empty page');
  return { ms, last };
}

/**
 * One items page of the handler invoked in-process with an API Gateway event, as bench/read.ts measures
 * handlers (no HTTP, no serverless-offline): `ms` until it returns its answer.
 */
async function handlerPage(after: number): Promise<number> {
  const query = { limit: '1000', after: String(after) };
  const event = {
    httpMethod: 'GET',
    resource: '/api/ogc/collections/{collectionId}/items',
    path: `/api/ogc/collections/${LAYER}/items`,
    pathParameters: { collectionId: LAYER },
    queryStringParameters: query,
    multiValueQueryStringParameters: { limit: [query.limit], after: [query.after] },
    headers: { Host: 'localhost', Accept: 'application/geo+json' },
    multiValueHeaders: {},
    body: null,
    isBase64Encoded: false,
    requestContext: { requestId: 'bench', stage: 'dev' },
  };
  const t0 = performance.now();
  const res = (await itemsHandler(event as never, { getRemainingTimeInMillis: () => 29_000 } as never)) as {
    statusCode: number;
    body: string;
  };
  const ms = performance.now() - t0;
  if (res.statusCode !== 200)
    throw new Error(`handler answered ${res.statusCode}: ${res.body.slice(0, 300)}`);
  return ms;
}

/**
 * One page over HTTP (bench/httpClient.ts, as a browser asks): `ms` until the client holds the answer's
 * bytes, `parseMs` for the client's own decoding and JSON.parse of them, reported apart (it is no cost of
 * the service).
 */
async function httpPage(url: string): Promise<{ ms: number; parseMs: number; next?: string; n: number }> {
  const t0 = performance.now();
  const res = await request(url);
  const t1 = performance.now();
  const body = JSON.parse(res.body.toString('utf8'));
  const parseMs = performance.now() - t1;
  if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
  return {
    ms: t1 - t0,
    parseMs,
    next: body.links.find((l: any) => l.rel === 'next')?.href,
    n: body.numberReturned,
  };
}

async function main() {
  const serverUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  const dbName = `mmgis_bench_ogc_${Date.now()}_${randomBytes(2).toString('hex')}`;
  await admin.unsafe(`create database ${dbName}`);
  const u = new URL(serverUrl);
  u.pathname = `/${dbName}`;
  const url = u.toString();
  const dir = mkdtempSync(join(tmpdir(), 'bench-ogc-'));
  let service: Awaited<ReturnType<typeof startServiceProcess>> | undefined;
  const db = createDb({ url, max: 4, statementTimeoutMs: 600_000 });
  try {
    await prepareDatabase(url, undefined);
    let t0 = performance.now();
    await recreateGeodataset(db, featureCollectionText(points(N_POINTS, 1)), { name: LAYER, startProp: 't' });
    console.log(
      `data: ${N_POINTS} seeded points loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
    service = await startServiceProcess({ databaseUrl: url, env: { AUTH: 'none', LOG_LEVEL: 'warn' } });
    const base = `${service.url}/api/ogc/collections/${LAYER}/items`;

    // Pages of 1,000: HTTP following next links, and the same statements alone.
    await httpPage(`${base}?limit=1000`);
    const http: number[] = [];
    const parse: number[] = [];
    let next: string | undefined = `${base}?limit=1000`;
    for (let i = 0; i < PAGES && next; i++) {
      const p = await httpPage(next);
      http.push(p.ms);
      parse.push(p.parseMs);
      next = p.next;
    }
    const sql: number[] = [];
    const afters: number[] = [];
    let after = 0;
    await sqlPage(db, 0);
    for (let i = 0; i < PAGES; i++) {
      afters.push(after);
      const p = await sqlPage(db, after);
      sql.push(p.ms);
      after = p.last;
    }
    // The handler in-process at the same cursors, each page beside its SQL alone again (no HTTP).
    process.env.DATABASE_URL = url;
    process.env.AUTH = 'none';
    process.env.LOG_LEVEL = 'warn';
    await handlerPage(0);
    const inProcess: number[] = [];
    const sqlBeside: number[] = [];
    for (const a of afters) {
      inProcess.push(await handlerPage(a));
      sqlBeside.push((await sqlPage(db, a)).ms);
    }
    const deepAfter = N_POINTS - 5000;
    const deep: number[] = [];
    const deepSql: number[] = [];
    for (let i = 0; i < 3; i++) {
      deep.push((await httpPage(`${base}?limit=1000&after=${deepAfter}`)).ms);
      deepSql.push((await sqlPage(db, deepAfter)).ms);
    }
    // The same pages of the service's own read (limit/offset), for the HTTP path's own cost.
    const get: number[] = [];
    for (let i = 0; i < PAGES; i++) {
      t0 = performance.now();
      await request(
        `${service.url}/api/geodatasets/get?layer=${LAYER}&type=geojson&limit=1000&offset=${i * 1000}`,
      );
      get.push(performance.now() - t0);
    }
    console.log('\ncase | SQL alone ms | HTTP ms (bytes received) | ratio');
    const row = (name: string, s: number, h: number) =>
      console.log(`${name} | ${s.toFixed(1)} | ${h.toFixed(1)} | ${(h / s).toFixed(2)}`);
    row(`items page of 1,000 (median of ${http.length} consecutive pages)`, median(sql), median(http));
    row(`items page of 1,000 after id ${deepAfter} (median of 3)`, median(deepSql), median(deep));
    row(
      `items page of 1,000, the handler in-process, no HTTP (median of ${inProcess.length} pages, each beside its SQL alone)`,
      median(sqlBeside),
      median(inProcess),
    );
    console.log(
      `reference: GET /api/geodatasets/get limit=1000 (median of ${PAGES} pages) | | ${median(get).toFixed(1)} |`,
    );
    console.log(
      `client's decoding and JSON.parse of an items page of 1,000 (median, not in the HTTP figures) | | ${median(parse).toFixed(1)} |`,
    );

    // The whole layer: GDAL's copy through the OGC API against one GET of /api/geodatasets/get.
    // The whole layer through the OGC API without GDAL: pages of 10,000 following the next links.
    t0 = performance.now();
    let pages = 0;
    let features = 0;
    for (let nextUrl: string | undefined = `${base}?limit=10000`; nextUrl; pages++) {
      const p = await httpPage(nextUrl);
      features += p.n;
      nextUrl = p.next;
    }
    const walkMs = performance.now() - t0;
    if (features !== N_POINTS) throw new Error(`walked ${features} features`);
    const gpkg = join(dir, 'copy.gpkg');
    t0 = performance.now();
    await run('ogr2ogr', [
      '-f',
      'GPKG',
      gpkg,
      `OAPIF:${service.url}/api/ogc`,
      LAYER,
      '-oo',
      'PAGE_SIZE=10000',
    ]);
    const copyMs = performance.now() - t0;
    // Where GDAL's time goes: the same read with nothing written (the Memory driver), and GDAL's own
    // reading of the same features from a local GeoJSON file (no HTTP, no service).
    t0 = performance.now();
    await run('ogr2ogr', [
      '-f',
      'Memory',
      'mem',
      `OAPIF:${service.url}/api/ogc`,
      LAYER,
      '-oo',
      'PAGE_SIZE=10000',
    ]);
    const readMs = performance.now() - t0;
    t0 = performance.now();
    const whole = await fetch(`${service.url}/api/geodatasets/get?layer=${LAYER}&type=geojson`);
    const wholeBytes = await whole.arrayBuffer();
    const bytes = wholeBytes.byteLength;
    const getMs = performance.now() - t0;
    const file = join(dir, 'whole.geojson');
    writeFileSync(file, Buffer.from(wholeBytes));
    t0 = performance.now();
    await run('ogr2ogr', ['-f', 'Memory', 'mem', file]);
    const fileMs = performance.now() - t0;
    console.log('\ncase | ms | size');
    console.log(
      `ogr2ogr OAPIF → GeoPackage, ${N_POINTS} features, pages of 10,000 | ${copyMs.toFixed(0)} | ${(statSync(gpkg).size / 1048576).toFixed(1)} MB gpkg`,
    );
    console.log(
      `GET /api/geodatasets/get whole layer (303 followed) | ${getMs.toFixed(0)} | ${(bytes / 1048576).toFixed(1)} MB GeoJSON`,
    );
    console.log(
      `OGC items, ${pages} pages of 10,000 by next links (HTTP and JSON.parse, no GDAL) | ${walkMs.toFixed(0)} |`,
    );
    console.log(
      `ogr2ogr OAPIF → Memory (GDAL reads the same pages, writes nothing) | ${readMs.toFixed(0)} |`,
    );
    console.log(
      `ogr2ogr of the whole layer's GeoJSON from a local file → Memory (GDAL's parse alone) | ${fileMs.toFixed(0)} |`,
    );
    console.log(`ratio ogr2ogr / get: ${(copyMs / getMs).toFixed(2)}`);
  } finally {
    await service?.stop();
    await db.end();
    rmSync(dir, { recursive: true, force: true });
    await admin.unsafe(`drop database if exists ${dbName} with (force)`).catch(() => {});
    await admin.end();
  }
}

await main();
