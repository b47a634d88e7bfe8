import { badRequest } from '#lib/errors.ts';

/**
 * The coordinate ranges of a filter's geometry literals (docs/cql2.md, "How expressions are evaluated"):
 * a coordinate outside its CRS's range is a 400, refused before any SQL is built, not evaluated.
 */

/** Web Mercator's extent (x), and y up to latitude ±89.9: beyond it the transformation has no answer. */
export const MERCATOR_X = 20037508.3428;
export const MERCATOR_Y = 44927335;

/** 400 for a longitude outside ±180 or a latitude outside ±90: no place on Earth, refused, not evaluated. */
export function checkLonLat(lonLat: number[][]): void {
  const bad = lonLat.find(([lon, lat]) => Math.abs(lon) > 180 || Math.abs(lat) > 90);
  if (bad)
    throw badRequest(
      `'filter' has a geometry coordinate (longitude ${bad[0]}, latitude ${bad[1]}) outside longitude [-180, 180] and latitude [-90, 90].`,
    );
}

/** 400 for an EPSG:3857 coordinate outside the projection's extent. */
export function checkMercator(positions: number[][]): void {
  if (positions.some(([x, y]) => Math.abs(x) > MERCATOR_X || Math.abs(y) > MERCATOR_Y))
    throw badRequest(
      `'filter' has an EPSG:3857 coordinate outside the projection's extent (|x| <= ${MERCATOR_X}, |y| <= ${MERCATOR_Y}).`,
    );
}
