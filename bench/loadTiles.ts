/**
 * The tile-throughput part of the load bench (`bench/load.ts`): z12 tiles at 8 concurrent clients through
 * the service against the same tile SQL alone at 8 clients, for the densest tile of the cluster, a typical
 * one and a light one.
 */
import { createDb, type Db } from '../lib/db/index.ts';
import { type Geodataset, requireDataset } from '../lib/geodatasets/catalog.ts';
import { CLUSTER } from './data.ts';
import { request } from './httpClient.ts';
import { RouteStats } from './loadMetrics.ts';
import type { Target } from './loadTargets.ts';
import { tileAt, tileSql } from './readTiles.ts';

/** Tiles per second of `one` run by `clients` concurrent loops for `seconds`. */
async function rate(clients: number, seconds: number, one: () => Promise<unknown>): Promise<number> {
  await one();
  let n = 0;
  const t0 = performance.now();
  const until = t0 + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < until) {
        await one();
        n++;
      }
    }),
  );
  return n / ((performance.now() - t0) / 1000);
}

/**
 * The z12 tiles of the ratio: the densest (the cluster's center tile), then going east from the center in
 * 0.05° steps, the first tile of at most 64 KB (a typical map tile) and the first of at most 8 KB (a light
 * one, where the per-request cost of the service shows most).
 */
async function z12Tiles(db: Db, ds: Geodataset) {
  const out = [{ label: 'densest', tile: tileAt(CLUSTER.lon, CLUSTER.lat, 12) }];
  const wanted = [
    { label: 'typical (≤ 64 KB)', max: 64 * 1024 },
    { label: 'light (≤ 8 KB)', max: 8 * 1024 },
  ];
  for (let d = 0.05; d < 3 && wanted.length > 0; d += 0.05) {
    const tile = tileAt(CLUSTER.lon + d, CLUSTER.lat, 12);
    const bytes = (await tileSql(tileParams(tile))(db, ds)).tile.length;
    while (wanted.length > 0 && bytes > 0 && bytes <= wanted[0].max) {
      out.push({ label: wanted[0].label, tile });
      wanted.shift();
    }
  }
  return out;
}

const tileParams = (t: { z: number; x: number; y: number }) => ({
  type: 'mvt',
  z: String(t.z),
  x: String(t.x),
  y: String(t.y),
});

/**
 * One tile at 8 clients: through the service, then the same SQL alone; then the same tile through the
 * service at 32 clients, each request's latency kept (the p99 of one z12 tile at 32 clients, as an
 * HTTP load tool would measure it).
 */
async function tileRate(
  t: Target,
  layer: string,
  db: Db,
  ds: Geodataset,
  tile: { z: number; x: number; y: number },
  seconds: number,
) {
  const params = tileParams(tile);
  const url = `${t.svc.url}/api/geodatasets/get?${new URLSearchParams({ layer, ...params })}`;
  let bytes = 0;
  const failed: number[] = [];
  const service = await rate(8, seconds, async () => {
    const res = await request(url);
    const n = res.body.byteLength;
    if (res.status === 200) bytes = n;
    else failed.push(res.status);
  });
  const sqlAlone = await rate(8, seconds, () => tileSql(params)(db, ds));
  const at32 = new RouteStats(`z12 tile at 32 clients`);
  await rate(32, seconds, async () => {
    const t0 = performance.now();
    const res = await request(url);
    at32.add(performance.now() - t0, res.status);
    if (res.status !== 200) failed.push(res.status);
  });
  return { tile, service, sqlAlone, bytes, failed, at32 };
}

/**
 * What a browser gets: the 40 z12 tiles of a 1920×1080 map view over the cluster (8 × 5 tiles), each
 * client going through all of them in its own order (a map loads different tiles, not one tile again),
 * through the service over keep-alive connections against the same tiles' SQL alone at the same number
 * of clients. A light tile alone measures the service's per-request cost, the densest the SQL's; a view
 * mixes them as a map does.
 */
async function viewRate(t: Target, layer: string, db: Db, ds: Geodataset, clients: number, seconds: number) {
  const c = tileAt(CLUSTER.lon, CLUSTER.lat, 12);
  const tiles = Array.from({ length: 40 }, (_, i) => ({
    z: 12,
    x: c.x - 4 + (i % 8),
    y: c.y - 2 + Math.floor(i / 8),
  }));
  const order = (k: number) => tiles.map((_, i) => tiles[(i * 7 + k * 11) % tiles.length]);
  const loop = (one: (tile: (typeof tiles)[number]) => Promise<unknown>) => {
    let k = 0;
    let next = 0;
    let list = order(0);
    return () => {
      if (next >= list.length) {
        list = order(++k);
        next = 0;
      }
      return one(list[next++]);
    };
  };
  const failed: number[] = [];
  const service = await rate(
    clients,
    seconds,
    loop(async (tile) => {
      const q = new URLSearchParams({ layer, ...tileParams(tile) });
      const res = await request(`${t.svc.url}/api/geodatasets/get?${q}`);
      if (res.status !== 200 && res.status !== 204) failed.push(res.status);
    }),
  );
  const sqlAlone = await rate(
    clients,
    seconds,
    loop((tile) => tileSql(tileParams(tile))(db, ds)),
  );
  return { service, sqlAlone, failed };
}

/**
 * The service's own floor: answers per second at 8 clients for a request that does no database work (the
 * OGC conformance document, public, 1.9 KB). No tile can go faster through the service, so a tile whose
 * SQL alone is faster than this cannot reach a high ratio locally, whatever its SQL costs. Asked for
 * uncompressed, as every tile is answered (`application/x-protobuf` is no type serverless-offline's hapi
 * compresses): gzip of this JSON would be a cost no tile pays.
 */
export async function floorRate(t: Target, seconds: number): Promise<number> {
  return rate(8, seconds, async () => {
    const res = await request(`${t.svc.url}/api/ogc/conformance?f=json`, {
      headers: { 'accept-encoding': 'identity' },
    });
    if (res.status !== 200) throw new Error(`conformance: ${res.status}`);
  });
}

/** The map view of `viewRate` at 8 clients. */
export async function z12ViewRatio(t: Target, layer: string, seconds: number) {
  const db = createDb({ url: t.svc.databaseUrl, max: 8 });
  try {
    return await viewRate(t, layer, db, await requireDataset(db.sql, layer), 8, seconds);
  } finally {
    await db.end();
  }
}

export async function z12Ratio(t: Target, layer: string, seconds: number) {
  const db = createDb({ url: t.svc.databaseUrl, max: 8 });
  try {
    const ds = await requireDataset(db.sql, layer);
    const out = [];
    for (const { label, tile } of await z12Tiles(db, ds)) {
      out.push({ label, ...(await tileRate(t, layer, db, ds, tile, seconds)) });
    }
    return out;
  } finally {
    await db.end();
  }
}

/**
 * The mix's 32-request tile bursts, SQL alone: `bursts` bursts of `tilesOf(k)` through a pool as large as
 * the service's (`DB_POOL_MAX`, 10 under `npm start`), each tile timed from its burst's start, as the mix
 * times each request: the latency a burst costs the database alone, with nothing else running.
 */
export async function burstSqlAlone(
  t: Target,
  layer: string,
  bursts: number,
  tilesOf: (k: number) => { z: number; x: number; y: number }[],
  pool = 10,
): Promise<RouteStats> {
  const db = createDb({ url: t.svc.databaseUrl, max: pool });
  const stats = new RouteStats('tile z10–z14 (32-request bursts), SQL alone');
  try {
    const ds = await requireDataset(db.sql, layer);
    for (let k = 0; k < bursts; k++) {
      const t0 = performance.now();
      await Promise.all(
        tilesOf(k).map(async (tile) => {
          await tileSql(tileParams(tile))(db, ds);
          stats.add(performance.now() - t0, 200);
        }),
      );
    }
    return stats;
  } finally {
    await db.end();
  }
}
