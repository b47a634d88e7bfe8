import { badRequest, HttpError } from '#lib/errors.ts';
import { validateFeature } from '#lib/geodatasets/write/validateGeometry.ts';

export type Geometry = Record<string, unknown> & { type: string };

/**
 * Validates a GeoJSON geometry (or a Feature, where `acceptFeature`) with the geodatasets rules
 * (docs/draw.md): 400 naming the body field on failure. Returns the geometry, polygons rewound.
 */
export function validGeometry(value: unknown, field: string, acceptFeature = false): Geometry {
  let g = value;
  if (acceptFeature && g && typeof g === 'object' && (g as { type?: unknown }).type === 'Feature') {
    g = (g as { geometry?: unknown }).geometry;
  }
  try {
    return validateFeature({ type: 'Feature', geometry: g, properties: {} }, 0).geometry as Geometry;
  } catch (e) {
    if (e instanceof HttpError && e.statusCode === 400) {
      const why = e.message.replace(/^Feature 0: /, '').replace(/^geometry/, field);
      throw badRequest(`Body field '${field}' is not a valid GeoJSON geometry: ${why}`);
    }
    throw e;
  }
}

export const isPolygonal = (g: Geometry) => g.type === 'Polygon' || g.type === 'MultiPolygon';
export const isLinear = (g: Geometry) => g.type === 'LineString' || g.type === 'MultiLineString';
