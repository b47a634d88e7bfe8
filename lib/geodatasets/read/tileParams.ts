import { badRequest } from '#lib/errors.ts';
import { pathList } from '#lib/geodatasets/read/filterParams.ts';
import type { SourceInput, TileAddressInput } from '#lib/geodatasets/read/readParams.ts';
import { SETTINGS, setting } from '#lib/settings.ts';

/** MVT extent (pixels per tile side) and buffer (pixels around the tile kept for rendering). */
export const EXTENT = 4096;
export const BUFFER = 64;
export const MAX_ZOOM = 24;
/**
 * The hard limit, `TILE_MAX_BYTES`'s bound as lib/settings.ts declares it (4 MiB): a Lambda response is
 * at most 6 MB, and a binary body grows by a third in base64. A budget handed in directly (tests, benches)
 * is held to it too.
 */
export const HARD_MAX_BYTES = SETTINGS.TILE_MAX_BYTES.max as number;

export interface TileAddress {
  z: number;
  x: number;
  y: number;
}

/**
 * The XYZ tile address of a `type=mvt` request from its declared parameters (integers, `0 ≤ z ≤ 24`:
 * the schema's, lib/geodatasets/read/readParams.ts): all three required, and `0 ≤ x, y < 2^z`; 400
 * naming the parameter otherwise.
 *
 * @example parseTileAddress({ z: 1, x: 1, y: 0 }) // { z: 1, x: 1, y: 0 }
 */
export function parseTileAddress(input: TileAddressInput): TileAddress {
  for (const field of ['z', 'x', 'y'] as const) {
    if (input[field] === undefined) {
      throw badRequest(`'${field}' is required with type=mvt (a non-negative integer tile coordinate).`);
    }
  }
  const { z, x, y } = input as TileAddress;
  if (z > MAX_ZOOM) throw badRequest(`'z' must be between 0 and ${MAX_ZOOM} (got ${z}).`);
  const n = 2 ** z;
  if (x >= n) throw badRequest(`'x' must be between 0 and ${n - 1} at z=${z} (got ${x}).`);
  if (y >= n) throw badRequest(`'y' must be between 0 and ${n - 1} at z=${z} (got ${y}).`);
  return { z, x, y };
}

/**
 * The lon/lat box of tile `a` grown by the MVT buffer: the `geom && box` candidate filter (GiST), in the
 * column's SRID. Computed here rather than by transforming `ST_TileEnvelope(..., margin)`: at the
 * antimeridian the grown envelope's corner wraps to the other side of the world in 4326 (PostGIS clamps
 * the margin only at z0). Beyond the world's edge the box is clamped to ±180° and, above or below Web
 * Mercator's latitude limit, opened up to the pole.
 */
export function tileFilterBounds(a: TileAddress): [number, number, number, number] {
  const n = 2 ** a.z;
  const m = BUFFER / EXTENT;
  const lon = (t: number) => Math.max(-180, Math.min(180, (t / n) * 360 - 180));
  const lat = (t: number) => {
    if (t <= 0) return 90;
    if (t >= n) return -90;
    return (Math.atan(Math.sinh(Math.PI * (1 - (2 * t) / n))) * 180) / Math.PI;
  };
  return [lon(a.x - m), lat(a.y + 1 + m), lon(a.x + 1 + m), lat(a.y - m)];
}

/** Most `_source` paths of a tile (each becomes an attribute). */
export const MAX_TILE_FIELDS = 50;

/**
 * `_source` of a tile request: comma-separated (or repeated) property paths (dots for nesting), at most
 * 50 distinct; each becomes one attribute named by its path. Undefined when absent (all top-level properties).
 */
export function parseTileSource(input: SourceInput): string[][] | undefined {
  return pathList('_source', [input._source, input['_source[]']], MAX_TILE_FIELDS);
}

/** Tunables (environment): cache lifetime and the size guard. See docs/tiles.md. */
export interface TileSettings {
  /** `TILE_MAX_AGE` seconds in Cache-Control (default 300). */
  maxAge: number;
  /**
   * `TILE_MAX_FEATURES`: the feature cap (default 4096): a tile keeps every candidate up to it, else one
   * feature per occupied pixel, and only when those are more is it thinned evenly to the cap and marked
   * (docs/tiles.md, "Thinning" and "The feature cap").
   */
  maxFeatures: number;
  /** `TILE_MAX_BYTES`: byte budget of one tile (default 500,000, the usual vector tile budget; never above 4 MiB). */
  maxBytes: number;
}

export function tileSettings(): TileSettings {
  return {
    maxAge: setting('TILE_MAX_AGE'),
    maxFeatures: setting('TILE_MAX_FEATURES'),
    maxBytes: setting('TILE_MAX_BYTES'),
  };
}
