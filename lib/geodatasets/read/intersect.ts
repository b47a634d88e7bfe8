import { check } from '@placemarkio/check-geojson';
import type { Queryable } from '#lib/db/index.ts';
import { badRequest } from '#lib/errors.ts';
import type { Geodataset } from '../catalog.ts';
import { type ReadFilters, resolveReadFilters } from './filters.ts';
import { streamFeaturesJson } from './geojson.ts';

const GEOMETRY_TYPES = new Set([
  'Point',
  'MultiPoint',
  'LineString',
  'MultiLineString',
  'Polygon',
  'MultiPolygon',
  'GeometryCollection',
]);

/**
 * The `intersect` member of POST /intersect: a GeoJSON geometry object or its JSON text (a Feature is
 * accepted for its geometry). Returns validated JSON text for `ST_GeomFromGeoJSON`; 400 naming the problem.
 */
export function parseIntersectGeometry(value: unknown): string {
  let g: unknown = value;
  if (typeof value === 'string') {
    try {
      g = JSON.parse(value);
    } catch {
      throw badRequest(`'intersect' is not valid JSON: send a GeoJSON geometry object or its JSON text.`);
    }
  }
  if (!g || typeof g !== 'object' || Array.isArray(g)) {
    throw badRequest(`'intersect' must be a GeoJSON geometry (object or JSON text).`);
  }
  if ((g as { type?: unknown }).type === 'Feature') g = (g as { geometry?: unknown }).geometry;
  const type = (g as { type?: unknown } | null)?.type;
  if (typeof type !== 'string' || !GEOMETRY_TYPES.has(type)) {
    throw badRequest(
      `'intersect' must be a GeoJSON geometry (Point, LineString, Polygon, Multi*, GeometryCollection).`,
    );
  }
  const text = JSON.stringify(g);
  try {
    check(text);
  } catch (e) {
    const issue = (e as { issues?: { message: string }[] }).issues?.[0]?.message ?? (e as Error).message;
    throw badRequest(`'intersect' is not a valid GeoJSON geometry: ${issue}`);
  }
  return text;
}

/** POST /intersect: `{status, body: FeatureCollection}` text built by the database, as pieces (featuresText.ts). */
export async function* readIntersect(
  sql: Queryable,
  ds: Geodataset,
  f: ReadFilters,
  geometry: string,
): AsyncGenerator<string> {
  const filters = await resolveReadFilters(sql, { ...f, intersect: geometry });
  yield* streamFeaturesJson(sql, ds, filters, { offset: 0 }, WRAP);
}

const WRAP = {
  before: '{"status":"success","body":{"type":"FeatureCollection","features":',
  after: '}}',
};
