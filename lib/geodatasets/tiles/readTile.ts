import type { Fragment } from '#lib/db/fragments.ts';
import type { Db } from '#lib/db/index.ts';
import type { Geodataset } from '#lib/geodatasets/catalog.ts';
import { indexedLevels, levelShare } from '#lib/geodatasets/rank.ts';
import { encodeTile, type TileRow } from '#lib/geodatasets/tiles/encode.ts';
import { keepBySample, needsSample, SAMPLE } from '#lib/geodatasets/tiles/sizeGuard.ts';
import {
  idHash,
  PREFIX,
  type RankRead,
  sqlLevelCount,
  thinKeep,
} from '#lib/geodatasets/tiles/thinningSql.ts';
import {
  HARD_MAX_BYTES,
  type TileAddress,
  type TileSettings,
  tileSettings,
} from '#lib/geodatasets/tiles/tileParams.ts';
import { sqlTileMvt, sqlTileRows } from '#lib/geodatasets/tiles/tileSql.ts';

export interface Tile {
  /** The MVT protobuf as base64, the form the HTTP answer carries; empty when no feature falls in the tile. */
  base64: string;
  /** The protobuf's length in bytes. */
  bytes: number;
  /** The MVT protobuf, decoded from `base64` when asked for (tests, benches; the HTTP answer never asks). */
  readonly tile: Buffer;
  /** Features in the tile. */
  n: number;
  /** The feature cap the tile was finally built with (thinning applies to tiles with more candidates). */
  maxFeatures: number;
  encoder: 'st_asmvt' | 'vt-pbf';
}

/**
 * Builds one tile with the encoder the database supports (`ST_AsMVT` on the server, vt-pbf on the
 * embedded database), or with `encoder` when a test wants a given one. Size guard (docs/tiles.md):
 * more candidates than `featureCap` → deterministic thinning; a tile still larger than `maxBytes` is
 * rebuilt with a proportionally smaller cap, so no tile exceeds the budget (nor the 4 MiB hard limit).
 *
 * @example const { tile, n } = await readTile(db, ds, { z: 3, x: 4, y: 2 }, sql`true`)
 */
export async function readTile(
  db: Db,
  ds: Geodataset,
  address: TileAddress,
  where: Fragment,
  options: {
    settings?: TileSettings;
    encoder?: Tile['encoder'];
    source?: string[][];
    /** The rank levels to consider (tests: a small layer's); default those indexed for the layer's size. */
    levels?: number;
  } = {},
): Promise<Tile> {
  const settings = options.settings ?? tileSettings();
  const encoder = options.encoder ?? ((await db.capabilities()).asMvt ? 'st_asmvt' : 'vt-pbf');
  const budget = Math.min(settings.maxBytes, HARD_MAX_BYTES);
  let cap = featureCap(address.z, settings.maxFeatures);
  for (;;) {
    const rank = await rankRead(db, ds, address, where, cap, options.levels);
    const built = await buildOnce(db, ds, address, where, cap, budget, encoder, rank, options.source);
    if (built.bytes <= budget || built.n <= 1) {
      const { base64 } = built;
      return {
        ...built,
        maxFeatures: cap,
        encoder,
        get tile() {
          return Buffer.from(base64, 'base64');
        },
      };
    }
    // Scale the cap by the overshoot, with 10 % headroom; always shrink by at least one feature.
    cap = Math.max(1, Math.min(built.n - 1, Math.floor(((built.n * budget) / built.bytes) * 0.9)));
  }
}

/**
 * Features per tile before thinning: `maxFeatures`, and at low zooms 4096 · 2^z (one per pixel row of a
 * z0 tile; z0 4096, z1 8192, z2 on the full cap by default), so the world tiles stay small and fast.
 */
export function featureCap(z: number, maxFeatures: number): number {
  return Math.max(1, Math.min(maxFeatures, 4096 * 2 ** z));
}

/**
 * The rank level (lib/geodatasets/rank.ts) a thinned tile reads its ranked candidates from, in the layer's
 * overview: 0 (the whole box) for a layer with no levels; else the tile is defined by its level-1
 * candidates (docs/tiles.md, "Thinning"), and this is the sparsest level that still holds their first
 * `PREFIX × thinKeep(cap)` in rank order (each level is the start of the one before it in that order, so
 * every level that holds them gives the same tile), or 1. The first probe counts the sparsest useful level
 * (at most that many rows); its count estimates the tile's candidates and names the level to try next,
 * denser one level at a time until one holds enough. A tile that turns out not thinned reads no level.
 * `thinned`: a level's count passed the cap (it can when PREFIX × thinKeep(cap) > cap, as with the
 * default cap), so the tile is thinned and need not count its box.
 */
export async function rankRead(
  db: Db,
  ds: Geodataset,
  address: TileAddress,
  where: Fragment,
  cap: number,
  levels = indexedLevels(ds.numFeatures),
): Promise<RankRead> {
  if (levels === 0) return { level: 0, thinned: false };
  const need = PREFIX * thinKeep(cap);
  let k = levels;
  while (k > 1 && ds.numFeatures * levelShare(k) < need) k--;
  if (k === 1) return { level: 1, thinned: false };
  const count = async (level: number) =>
    Number((await sqlLevelCount(db.sql, ds, address, where, level, need))[0]?.c ?? 0);
  const first = await count(k);
  if (first >= need) return { level: k, thinned: first > cap };
  const estimate = first / levelShare(k);
  let j = k - 1;
  while (j > 1 && estimate * levelShare(j) < 1.5 * need) j--;
  for (; j > 1; j--) {
    const c = await count(j);
    if (c >= need) return { level: j, thinned: c > cap };
  }
  // Likely thinned: level 1's count shows it when it passes the cap (the box then need not be counted).
  if (estimate > cap) return { level: 1, thinned: (await count(1)) > cap };
  return { level: 1, thinned: false };
}

async function buildOnce(
  db: Db,
  ds: Geodataset,
  address: TileAddress,
  where: Fragment,
  cap: number,
  budget: number,
  encoder: Tile['encoder'],
  rank: RankRead,
  source?: string[][],
): Promise<{ base64: string; bytes: number; n: number }> {
  if (encoder === 'st_asmvt') {
    // The database answers the protobuf as base64 text: no hex text to decode, no Buffer to re-encode.
    const [row] = await sqlTileMvt(db.sql, ds, address, where, cap, budget, rank, source);
    return { base64: String(row?.tile ?? ''), bytes: Number(row?.bytes ?? 0), n: Number(row?.n ?? 0) };
  }
  const rows = (await sqlTileRows(db.sql, ds, address, where, cap, rank, source)) as unknown as TileRow[];
  const { tile, n } = encodeTile(ds.name, keptByEstimate(ds.name, rows, budget));
  return { base64: tile.toString('base64'), bytes: tile.length, n };
}

/**
 * The size guard's estimate for the vt-pbf encoder, the rule `sqlTileMvt` applies in SQL (`needsSample`,
 * `keepBySample`): the first features in hash order, then back in id order.
 */
function keptByEstimate(layer: string, rows: TileRow[], budget: number): TileRow[] {
  const bound = rows.reduce((sum, r) => sum + Number(r.b ?? 0), 0);
  if (!needsSample(rows.length, bound, budget)) return rows;
  const ranked = rows
    .map((r) => ({ r, h: idHash(r.id) }))
    .sort((p, q) => p.h - q.h || Number(p.r.id) - Number(q.r.id))
    .map((x) => x.r);
  const keep = keepBySample(rows.length, encodeTile(layer, ranked.slice(0, SAMPLE)).tile.length, budget);
  if (keep >= rows.length) return rows;
  return ranked.slice(0, keep).sort((p, q) => Number(p.id) - Number(q.id));
}
