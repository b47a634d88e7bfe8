import { createHash } from 'node:crypto';
import { authMode } from '#lib/auth/permissions.ts';
import type { Geodataset } from '#lib/geodatasets/catalog.ts';
import { TILE_PARAMS } from '#lib/geodatasets/read/getParams.ts';
import { type TileSettings, tileSettings } from '#lib/geodatasets/read/tileParams.ts';

/**
 * Tile caching, in one place (docs/tiles.md, "Caching"): the ETag a tile is revalidated by, its
 * Cache-Control, and the headers every tile answer carries. What changes a tile is declared once, as
 * `TILE_PARAMS` beside GET /get's schema (lib/geodatasets/read/getParams.ts); the gateway stage cache
 * (serverless/plugins/gateway-cache.cjs) keys on the same declaration.
 */

/** The values a tile's cache key is built from: the declared parameters, as the validator typed them (others are ignored). */
export type TileKeyInput = Partial<Record<(typeof TILE_PARAMS)[number], unknown>> & Record<string, unknown>;

/**
 * The request as it matters for the tile: each declared tile parameter that is given, sorted by name,
 * values as text. Two requests with the same key get the same tile; other parameters (`stats`, paging,
 * `layer`, a cache buster `_`) never change it.
 */
export function tileCacheKey(input: TileKeyInput): [string, string][] {
  return [...TILE_PARAMS]
    .sort()
    .filter((k) => input[k] !== undefined && input[k] !== null && input[k] !== '')
    .map((k) => [k, String(input[k])]);
}

/**
 * A strong ETag for one tile of one dataset state: a hash of the dataset's id, table and `version`
 * (bumped by every write), the request's cache key and the thinning settings. It needs no tile query,
 * so a revalidation (`If-None-Match`) is answered before any dataset table is touched.
 */
export function tileEtag(
  ds: Pick<Geodataset, 'id' | 'table' | 'version'>,
  input: TileKeyInput,
  settings: TileSettings = tileSettings(),
): string {
  const h = createHash('sha256')
    .update(
      JSON.stringify([
        'mvt7',
        ds.id,
        ds.table,
        ds.version,
        tileCacheKey(input),
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
