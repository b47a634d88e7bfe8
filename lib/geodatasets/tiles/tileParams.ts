import { createHash } from 'node:crypto';
import { authMode } from '#lib/auth/permissions.ts';
import { badRequest } from '#lib/errors.ts';
import type { Geodataset } from '#lib/geodatasets/catalog.ts';
import { parsePath } from '#lib/geodatasets/read/filters.ts';
import { envNumber } from '#lib/settings.ts';

/** MVT extent (pixels per tile side) and buffer (pixels around the tile kept for rendering). */
export const EXTENT = 4096;
export const BUFFER = 64;
export const MAX_ZOOM = 24;
/** The hard limit: a Lambda response is at most 6 MB, and a binary body grows by a third in base64. */
export const HARD_MAX_BYTES = 4 * 1024 * 1024;

export interface TileAddress {
  z: number;
  x: number;
  y: number;
}

const INTEGER = /^\d{1,10}$/;

function tileInt(query: Record<string, unknown>, field: 'x' | 'y' | 'z'): number {
  const raw = query[field];
  if (raw === undefined || raw === null || raw === '') {
    throw badRequest(`'${field}' is required with type=mvt (a non-negative integer tile coordinate).`);
  }
  const text = String(raw).trim();
  if (!INTEGER.test(text)) {
    throw badRequest(`'${field}' must be a non-negative integer (got ${JSON.stringify(raw).slice(0, 40)}).`);
  }
  return Number(text);
}

/**
 * The XYZ tile address of a `type=mvt` request: integers with `0 ≤ z ≤ 24` and `0 ≤ x, y < 2^z`;
 * anything else is a 400 naming the parameter.
 *
 * @example parseTileAddress({ z: '1', x: '1', y: '0' }) // { z: 1, x: 1, y: 0 }
 */
export function parseTileAddress(query: Record<string, unknown>): TileAddress {
  const z = tileInt(query, 'z');
  if (z > MAX_ZOOM) throw badRequest(`'z' must be between 0 and ${MAX_ZOOM} (got ${z}).`);
  const x = tileInt(query, 'x');
  const y = tileInt(query, 'y');
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

/**
 * `_source` of a tile request: comma-separated property paths (dots for nesting), at most 50; each becomes
 * one attribute named by its path. Undefined when absent (all top-level properties).
 */
export function parseTileSource(query: Record<string, unknown>): string[][] | undefined {
  const raw = query._source;
  if (raw === undefined || raw === null || raw === '') return undefined;
  const names = String(raw)
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '');
  if (names.length > 50) throw badRequest(`'_source' names more than 50 fields.`);
  return names.length ? [...new Set(names)].map((n) => parsePath(n, '_source')) : undefined;
}

/** Tunables (environment): cache lifetime and the size guard. See docs/tiles.md. */
export interface TileSettings {
  /** `TILE_MAX_AGE` seconds in Cache-Control (default 300). */
  maxAge: number;
  /** `TILE_MAX_FEATURES`: above this many candidate features a tile is thinned (default 15000). */
  maxFeatures: number;
  /** `TILE_MAX_BYTES`: byte budget of one tile (default 1,000,000; never above 4 MiB). */
  maxBytes: number;
}

export function tileSettings(): TileSettings {
  return {
    maxAge: envNumber('TILE_MAX_AGE', 300, { zero: true, integer: true }),
    maxFeatures: envNumber('TILE_MAX_FEATURES', 15000, { integer: true }),
    maxBytes: envNumber('TILE_MAX_BYTES', 1_000_000, { integer: true, max: HARD_MAX_BYTES }),
  };
}

/** Query parameters that never change a tile (docs/tiles.md: mvt ignores them), left out of the ETag. */
const IGNORED = new Set(['stats', 'limit', 'offset', 'limited', 'layer']);

/**
 * The request as it matters for the tile: every other query parameter, sorted by name, values as text.
 * Two requests with the same normalized form get the same tile.
 */
export function normalizeTileQuery(query: Record<string, unknown>): [string, string][] {
  return Object.keys(query)
    .filter((k) => !IGNORED.has(k) && query[k] !== undefined && query[k] !== null)
    .sort()
    .map((k) => [k, String(query[k])]);
}

/**
 * A strong ETag for one tile of one dataset state: a hash of the dataset's id, table and `version`
 * (bumped by every write), the normalized request and the thinning settings. It needs no tile query,
 * so a revalidation (`If-None-Match`) is answered before any dataset table is touched.
 */
export function tileEtag(
  ds: Pick<Geodataset, 'id' | 'table' | 'version'>,
  query: Record<string, unknown>,
  settings: TileSettings = tileSettings(),
): string {
  const h = createHash('sha256')
    .update(
      JSON.stringify([
        'mvt1',
        ds.id,
        ds.table,
        ds.version,
        normalizeTileQuery(query),
        settings.maxFeatures,
        settings.maxBytes,
      ]),
    )
    .digest('base64url')
    .slice(0, 32);
  return `"${h}"`;
}

/**
 * Cache-Control of tiles: shared caches may keep them for `maxAge` seconds; under `AUTH=local` tiles
 * are private (a shared cache would hand them to callers who are not logged in).
 */
export function tileCacheControl(settings: TileSettings = tileSettings()): string {
  return `${authMode() === 'local' ? 'private' : 'public'}, max-age=${settings.maxAge}`;
}

/** The headers every tile answer carries (200, 204 and 304). */
export function tileHeaders(etag: string, settings: TileSettings = tileSettings()): Record<string, string> {
  return { ETag: etag, 'Cache-Control': tileCacheControl(settings) };
}
