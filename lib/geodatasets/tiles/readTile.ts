import type { Fragment } from '#lib/db/fragments.ts';
import type { Db } from '#lib/db/index.ts';
import type { Geodataset } from '#lib/geodatasets/catalog.ts';
import { createRankLevels, overviewName } from '#lib/geodatasets/rank.ts';
import {
  HARD_MAX_BYTES,
  type TileAddress,
  type TileSettings,
  tileSettings,
} from '#lib/geodatasets/read/tileParams.ts';
import { encodeTile, type TileRow } from '#lib/geodatasets/tiles/encode.ts';
import { keepBySample, needsSample, SAMPLE } from '#lib/geodatasets/tiles/sizeGuard.ts';
import { isUnfiltered } from '#lib/geodatasets/tiles/thinningSql.ts';
import { sqlTileMvt, sqlTileRows, THINNED_ATTRIBUTE } from '#lib/geodatasets/tiles/tileSql.ts';

export interface Tile {
  /** The MVT protobuf as base64, the form the HTTP answer carries; empty when no feature falls in the tile. */
  base64: string;
  /** The protobuf's length in bytes. */
  bytes: number;
  /** The MVT protobuf, decoded from `base64` when asked for (tests, benches; the HTTP answer never asks). */
  readonly tile: Buffer;
  /** Features in the tile. */
  n: number;
  /** The feature cap the tile was finally built with. */
  maxFeatures: number;
  /**
   * A feature may be missing whose pixel no kept feature covers (the cap, the byte budget, or a filter
   * that a level's feature failed): its features carry `_thinned: true` (docs/tiles.md, "Thinning").
   */
  thinned: boolean;
  encoder: 'st_asmvt' | 'vt-pbf';
}

/**
 * Builds one tile with the encoder the database supports (`ST_AsMVT` on the server, vt-pbf on the
 * embedded database), or with `encoder` when a test wants a given one (docs/tiles.md, "Thinning"): every
 * candidate when they are at most the cap, else one feature per occupied pixel from the layer's pixel
 * levels, thinned evenly (and marked) only when those are more than the cap; a tile still larger than
 * `maxBytes` is rebuilt with a proportionally smaller cap, so no tile exceeds the budget (nor the 4 MiB
 * hard limit). A layer without pixel levels gets them first (a lazy rebuild).
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
  } = {},
): Promise<Tile> {
  const settings = options.settings ?? tileSettings();
  const encoder = options.encoder ?? ((await db.capabilities()).asMvt ? 'st_asmvt' : 'vt-pbf');
  const budget = Math.min(settings.maxBytes, HARD_MAX_BYTES);
  const filtered = !isUnfiltered(where);
  let cap = featureCap(address.z, settings.maxFeatures);
  let shrunk = false;
  for (;;) {
    const built = await withLevels(db, ds, () =>
      buildOnce(db, ds, address, where, cap, budget, encoder, filtered, options.source),
    );
    if (built.bytes <= budget || built.n <= 1) {
      const { base64 } = built;
      return {
        ...built,
        thinned: built.thinned || shrunk,
        maxFeatures: cap,
        encoder,
        get tile() {
          return Buffer.from(base64, 'base64');
        },
      };
    }
    // Scale the cap by the overshoot, with 10 % headroom; always shrink by at least one feature.
    cap = Math.max(1, Math.min(built.n - 1, Math.floor(((built.n * budget) / built.bytes) * 0.9)));
    shrunk = true;
  }
}

/**
 * Runs `build`; when the layer has no pixel levels (a table made before them, or whose overview was
 * lost), makes them and runs it again.
 */
async function withLevels<T>(db: Db, ds: Geodataset, build: () => Promise<T>): Promise<T> {
  try {
    return await build();
  } catch (e) {
    const err = e as { code?: string; message?: string };
    if (err?.code !== '42P01' || !String(err.message ?? '').includes(overviewName(ds.table))) throw e;
    await createRankLevels(db.sql, ds.table);
    return build();
  }
}

/**
 * Features per tile before thinning evenly: `maxFeatures`, and at low zooms 4096 · 2^z (one per pixel
 * row of a z0 tile at its 4096 extent), so the world tiles stay small and fast.
 */
export function featureCap(z: number, maxFeatures: number): number {
  return Math.max(1, Math.min(maxFeatures, 4096 * 2 ** z));
}

async function buildOnce(
  db: Db,
  ds: Geodataset,
  address: TileAddress,
  where: Fragment,
  cap: number,
  budget: number,
  encoder: Tile['encoder'],
  filtered: boolean,
  source?: string[][],
): Promise<{ base64: string; bytes: number; n: number; thinned: boolean }> {
  if (encoder === 'st_asmvt') {
    // The database answers the protobuf as base64 text: no hex text to decode, no Buffer to re-encode.
    const [row] = await sqlTileMvt(db.sql, ds, address, where, cap, budget, filtered, source);
    return {
      base64: String(row?.tile ?? ''),
      bytes: Number(row?.bytes ?? 0),
      n: Number(row?.n ?? 0),
      thinned: row?.thinned === true,
    };
  }
  const rows = (await sqlTileRows(db.sql, ds, address, where, cap, filtered, source)) as unknown as KeptRow[];
  const before = rows.some((r) => r.thinned === true);
  const kept = keptByEstimate(ds.name, rows, budget, before);
  const thinned = before || kept.length < rows.length;
  const { tile, n } = encodeTile(ds.name, thinned ? kept.map(marked) : kept);
  return { base64: tile.toString('base64'), bytes: tile.length, n, thinned };
}

/** A row of `sqlTileRows`: its feature, its place in the size guard's order and the tile's thinning. */
type KeptRow = TileRow & { rk: number | string; thinned: boolean };

function attributesOf(r: TileRow): Record<string, unknown> {
  return typeof r.attributes === 'string' ? JSON.parse(r.attributes) : (r.attributes ?? {});
}

/** The row with the thinned mark among its attributes (as `sqlTileMvt` adds it). */
function marked<T extends TileRow>(r: T): T {
  return { ...r, attributes: { ...attributesOf(r), [THINNED_ATTRIBUTE]: true } };
}

/**
 * The size guard's estimate for the vt-pbf encoder, the rule `sqlTileMvt` applies in SQL (`needsSample`,
 * `keepBySample`): the first features in `rk` order, then back in id order.
 */
function keptByEstimate(layer: string, rows: KeptRow[], budget: number, thinned: boolean): KeptRow[] {
  const bound = rows.reduce((sum, r) => sum + Number(r.b ?? 0), 0);
  if (!needsSample(rows.length, bound, budget)) return rows;
  const ranked = [...rows].sort((p, q) => Number(p.rk) - Number(q.rk));
  const sample = ranked.slice(0, SAMPLE).sort((p, q) => Number(p.id) - Number(q.id));
  const keep = keepBySample(
    rows.length,
    encodeTile(layer, thinned ? sample.map(marked) : sample).tile.length,
    budget,
  );
  if (keep >= rows.length) return rows;
  return ranked.slice(0, keep).sort((p, q) => Number(p.id) - Number(q.id));
}
