import { badRequest, notFound } from '#lib/errors.ts';
import { BUFFER, EXTENT, MAX_ZOOM, type TileAddress } from '#lib/geodatasets/read/tileParams.ts';

/** Web Mercator's latitude limit: rows beyond it are the first and the last. */
const MERC_LAT = 85.0511287798066;
const INTEGER = /^\d{1,10}$/;

export interface TileMatrixLimits {
  tileMatrix: string;
  minTileRow: number;
  maxTileRow: number;
  minTileCol: number;
  maxTileCol: number;
}

function pathInt(value: unknown, field: string): number {
  const s = String(value ?? '');
  if (!INTEGER.test(s))
    throw badRequest(`'${field}' must be a non-negative integer (got ${JSON.stringify(s).slice(0, 40)}).`);
  return Number(s);
}

/**
 * The `{tileMatrix}/{tileRow}/{tileCol}` of an OGC tile path as our z/x/y (row = y, column = x): integers,
 * `0 ≤ tileMatrix ≤ 24`, `0 ≤ row, col < 2^tileMatrix`; anything else 400 naming the field.
 *
 * @example parseTilePath({ tileMatrix: '3', tileRow: '2', tileCol: '5' }) // { z: 3, x: 5, y: 2 }
 */
export function parseTilePath(path: {
  tileMatrix?: unknown;
  tileRow?: unknown;
  tileCol?: unknown;
}): TileAddress {
  const z = pathInt(path.tileMatrix, 'tileMatrix');
  if (z > MAX_ZOOM) throw badRequest(`'tileMatrix' must be between 0 and ${MAX_ZOOM} (got ${z}).`);
  const n = 2 ** z;
  const y = pathInt(path.tileRow, 'tileRow');
  if (y >= n) throw badRequest(`'tileRow' must be between 0 and ${n - 1} at tileMatrix ${z} (got ${y}).`);
  const x = pathInt(path.tileCol, 'tileCol');
  if (x >= n) throw badRequest(`'tileCol' must be between 0 and ${n - 1} at tileMatrix ${z} (got ${x}).`);
  return { z, x, y };
}

/**
 * The tiles of each tile matrix that may hold a feature of a dataset whose lon/lat extent is `bbox`: the
 * tiles the box touches, grown by the tiles' buffer (64 of 4096 pixels, docs/tiles.md), so a feature on
 * a tile edge, which the tile beside it also carries, stays inside the limits. Undefined without a box.
 */
export function tileMatrixSetLimits(
  bbox: readonly [number, number, number, number] | null | undefined,
): TileMatrixLimits[] | undefined {
  if (!bbox?.every(Number.isFinite)) return undefined;
  const m = BUFFER / EXTENT;
  const fx = (lon: number) => (Math.max(-180, Math.min(180, lon)) + 180) / 360;
  const fy = (lat: number) => {
    const r = (Math.max(-MERC_LAT, Math.min(MERC_LAT, lat)) * Math.PI) / 180;
    return (1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2;
  };
  const out: TileMatrixLimits[] = [];
  for (let z = 0; z <= MAX_ZOOM; z++) {
    const n = 2 ** z;
    const clamp = (t: number) => Math.max(0, Math.min(n - 1, Math.floor(t)));
    out.push({
      tileMatrix: String(z),
      minTileRow: clamp(fy(bbox[3]) * n - m),
      maxTileRow: clamp(fy(bbox[1]) * n + m),
      minTileCol: clamp(fx(bbox[0]) * n - m),
      maxTileCol: clamp(fx(bbox[2]) * n + m),
    });
  }
  return out;
}

/** 404 when the tile lies outside the tileset's limits (OGC API – Tiles, `/req/core/tc-error`). */
export function assertWithinLimits(a: TileAddress, limits: TileMatrixLimits[] | undefined): void {
  const l = limits?.[a.z];
  if (!l) return;
  if (a.y < l.minTileRow || a.y > l.maxTileRow || a.x < l.minTileCol || a.x > l.maxTileCol) {
    throw notFound(
      `Tile ${a.z}/${a.y}/${a.x} is outside the tileset's limits at tileMatrix ${a.z} (rows ${l.minTileRow}-${l.maxTileRow}, columns ${l.minTileCol}-${l.maxTileCol}).`,
    );
  }
}
