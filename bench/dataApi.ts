/**
 * `npm run bench:data-api` — what one request costs through the RDS Data API driver against a direct
 * postgres.js connection, locally: the same lib calls on the same fresh database (server named by
 * DATABASE_URL, default the local one), one through postgres.js, one through the real
 * @aws-sdk/client-rds-data client and the local stand-in (local/dataApi/standIn.ts).
 *
 * Cases: a point lookup (the catalog row of a dataset, the query in front of every read), a GeoJSON page
 * (100 features), a vector tile (bytea), a 5 MB GeoJSON read (the oversize path), and a 1,000-feature
 * append (a transaction). Prints per case the median milliseconds of each driver, the ratio and the Data
 * API calls per request. AWS adds its own HTTPS round trip and request signing on top (see
 * docs/deploying.md); locally the stand-in's HTTP hop, JSON encoding and the SDK are what is measured.
 */
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { createDataApiDb } from '../lib/db/dataApi/index.ts';
import { createDb, type Db, probe } from '../lib/db/index.ts';
import { requireDataset } from '../lib/geodatasets/catalog.ts';
import { parseReadFilters } from '../lib/geodatasets/read/filters.ts';
import { readFeatureCollection } from '../lib/geodatasets/read/geojson.ts';
import { readTile } from '../lib/geodatasets/tiles/readTile.ts';
import { appendGeodataset, recreateGeodataset } from '../lib/geodatasets/write/write.ts';
import { startDataApiStandIn } from '../local/dataApi/standIn.ts';
import { prepareDatabase } from '../local/devServer.ts';
import { points } from './data.ts';

const admin = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function time(n: number, fn: () => Promise<unknown>): Promise<number> {
  await fn(); // warm
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    ms.push(performance.now() - t);
  }
  return median(ms);
}

async function main() {
  const name = `mmgis_bench_dataapi_${randomBytes(3).toString('hex')}`;
  const root = postgres(admin, { max: 1, onnotice: () => {} });
  await root.unsafe(`create database ${name}`);
  const u = new URL(admin);
  u.pathname = `/${name}`;
  const url = u.toString();
  const standIn = await startDataApiStandIn({ databaseUrl: url });
  let pg: Db | undefined;
  let api: (Db & { api: { calls: number } }) | undefined;
  try {
    await prepareDatabase(url, undefined);
    pg = createDb({ url, max: 1 });
    api = createDataApiDb(
      {
        resourceArn: 'arn:aws:rds:local:0:cluster:bench',
        secretArn: 'arn:local',
        database: name,
        endpoint: standIn.endpoint,
      },
      probe,
    );
    const fc = (n: number, seed: number) => ({ type: 'FeatureCollection', features: [...points(n, seed)] });
    await recreateGeodataset(pg, fc(20_000, 1), { name: 'bench_points' });
    const ds = await requireDataset(pg.sql, 'bench_points');
    const cases: { name: string; n: number; run: (db: Db) => Promise<unknown> }[] = [
      { name: 'catalog lookup', n: 200, run: (db) => requireDataset(db.sql, 'bench_points') },
      {
        name: 'GeoJSON page of 100',
        n: 100,
        run: (db) => readFeatureCollection(db.sql, ds, parseReadFilters({}), { limit: 100, offset: 0 }),
      },
      {
        name: 'vector tile z8',
        n: 50,
        run: async (db) => readTile(db, ds, { z: 8, x: 44, y: 102 }, db.sql`true`),
      },
      {
        name: 'GeoJSON 10,000 features (oversize path)',
        n: 5,
        run: (db) => readFeatureCollection(db.sql, ds, parseReadFilters({}), { limit: 10_000, offset: 0 }),
      },
      {
        name: 'append 1,000 features (transaction)',
        n: 10,
        run: (db) => appendGeodataset(db, fc(1000, 7), { name: 'bench_append' }),
      },
    ];
    console.log(`Data API (local stand-in) vs postgres.js, ${name}, medians:`);
    console.log('case | postgres.js ms | data-api ms | ratio | Data API calls/request | answer bytes');
    for (const c of cases) {
      const direct = await time(c.n, () => c.run(pg!));
      const before = api.api.calls;
      const viaApi = await time(c.n, () => c.run(api!));
      const calls = (api.api.calls - before) / (c.n + 1);
      const answer = await c.run(pg);
      const bytes =
        typeof answer === 'string'
          ? answer.length
          : Buffer.isBuffer((answer as { tile?: Buffer })?.tile)
            ? (answer as { tile: Buffer }).tile.length
            : JSON.stringify(answer ?? null).length;
      console.log(
        `${c.name} | ${direct.toFixed(2)} | ${viaApi.toFixed(2)} | ${(viaApi / direct).toFixed(1)} | ${calls.toFixed(1)} | ${bytes}`,
      );
    }
    console.log(`stand-in refusals for size: ${standIn.stats.refusedForSize}`);
  } finally {
    await api?.end();
    await pg?.end();
    await standIn.stop();
    await root.unsafe(`drop database if exists ${name} with (force)`);
    await root.end();
  }
}

await main();
