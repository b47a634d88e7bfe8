/**
 * The tile-throughput part of the load bench (`bench/load.ts`): z12 tiles at 8 concurrent clients through
 * the service against the same tile SQL alone at 8 clients, for the densest tile of the cluster, a typical
 * one and a light one.
 */
import { createDb, type Db } from '../lib/db/index.ts';
import { type Geodataset, requireDataset } from '../lib/geodatasets/catalog.ts';
import { CLUSTER } from './data.ts';
import type { Target } from './loadTargets.ts';
import { tileAt, tileSql } from './readTiles.ts';

/** Tiles per second of `fetchOne` run by `clients` concurrent loops for `seconds`. */
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

/** One tile at 8 clients: through the service, then the same SQL alone. */
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
    const res = await fetch(url);
    const n = (await res.arrayBuffer()).byteLength;
    if (res.status === 200) bytes = n;
    else failed.push(res.status);
  });
  const sqlAlone = await rate(8, seconds, () => tileSql(params)(db, ds));
  return { tile, service, sqlAlone, bytes, failed };
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
