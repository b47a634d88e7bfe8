import rewind from '@mapbox/geojson-rewind';
import { badRequest } from '#lib/errors.ts';

/**
 * GeoJSON feature validation for ingest (RFC 7946, docs/contract.md#4-geodatasets-api, docs/contract.md#5-edge-cases-decided): a Feature with a geometry of a
 * known type, positions of 2–3 finite numbers in lon [-180, 180] / lat [-90, 90], LineStrings of ≥ 2
 * positions, closed polygon rings of ≥ 4 positions. A coordinate within `EDGE_TOLERANCE` of the range (a
 * floating-point rounding of its edge, as `180.00000000000006`) is the edge: it is clamped, not refused.
 * Polygon winding is normalized with
 * `@mapbox/geojson-rewind` (right-hand rule). These are the rules `@placemarkio/check-geojson` applies; it
 * is not used per feature because it measured 26 µs a feature (5 s for 200,000 points) against the
 * ingest budget of about 2 s (docs/geodatasets-write.md).
 */
export interface ValidFeature {
  geometry: Record<string, unknown>;
  properties: Record<string, unknown>;
}

class GeometryError extends Error {}

function fail(msg: string): never {
  throw new GeometryError(msg);
}

/** Degrees past ±180 / ±90 that are the edge's rounding (a nanodegree: about 0.1 mm), not another place. */
const EDGE_TOLERANCE = 1e-9;

/** `v` clamped to [-edge, edge] when it lies past it by no more than `EDGE_TOLERANCE`. */
function toEdge(v: number, edge: number): number {
  if (v > edge && v - edge <= EDGE_TOLERANCE) return edge;
  if (v < -edge && -edge - v <= EDGE_TOLERANCE) return -edge;
  return v;
}

function position(p: unknown, where: string): void {
  if (!Array.isArray(p) || p.length < 2 || p.length > 3) {
    fail(`${where} must be a position [longitude, latitude] or [longitude, latitude, elevation]`);
  }
  for (const v of p) if (typeof v !== 'number' || !Number.isFinite(v)) fail(`${where} holds a non-number`);
  const q = p as number[];
  q[0] = toEdge(q[0], 180);
  q[1] = toEdge(q[1], 90);
  const [lon, lat] = q;
  if (lon < -180 || lon > 180) fail(`${where} has longitude ${lon} outside [-180, 180]`);
  if (lat < -90 || lat > 90) fail(`${where} has latitude ${lat} outside [-90, 90]`);
}

function positions(a: unknown, where: string, min: number): void {
  if (!Array.isArray(a)) fail(`${where} must be an array of positions`);
  if (a.length < min) fail(`${where} needs at least ${min} positions (has ${a.length})`);
  for (let i = 0; i < a.length; i++) position(a[i], `${where}[${i}]`);
}

function ring(a: unknown, where: string): void {
  positions(a, where, 4);
  const r = a as number[][];
  const f = r[0];
  const l = r[r.length - 1];
  if (f.length !== l.length || f.some((v, i) => v !== l[i])) {
    fail(`${where} is not closed (its first and last positions differ)`);
  }
}

function rings(a: unknown, where: string): void {
  if (!Array.isArray(a) || a.length === 0) fail(`${where} must be a non-empty array of linear rings`);
  for (let i = 0; i < a.length; i++) ring(a[i], `${where}[${i}]`);
}

function parts(a: unknown, where: string, each: (x: unknown, w: string) => void): void {
  if (!Array.isArray(a) || a.length === 0) fail(`${where} must be a non-empty array`);
  for (let i = 0; i < a.length; i++) each(a[i], `${where}[${i}]`);
}

function geometry(g: unknown, where: string, depth = 0): void {
  if (g === null || g === undefined) fail(`${where} is missing (null geometries are not accepted)`);
  if (typeof g !== 'object' || Array.isArray(g)) fail(`${where} must be a GeoJSON geometry object`);
  const geom = g as Record<string, unknown>;
  const c = geom.coordinates;
  const at = `${where}.coordinates`;
  switch (geom.type) {
    case 'Point':
      position(c, at);
      return;
    case 'MultiPoint':
      positions(c, at, 1);
      return;
    case 'LineString':
      positions(c, at, 2);
      return;
    case 'MultiLineString':
      parts(c, at, (x, w) => positions(x, w, 2));
      return;
    case 'Polygon':
      rings(c, at);
      return;
    case 'MultiPolygon':
      parts(c, at, rings);
      return;
    case 'GeometryCollection': {
      if (depth > 0) fail(`${where} nests a GeometryCollection`);
      const gs = geom.geometries;
      if (!Array.isArray(gs) || gs.length === 0) fail(`${where}.geometries must be a non-empty array`);
      for (let i = 0; i < gs.length; i++) geometry(gs[i], `${where}.geometries[${i}]`, depth + 1);
      return;
    }
    default:
      fail(`${where}.type ${JSON.stringify(geom.type)?.slice(0, 40)} is not a GeoJSON geometry type`);
  }
}

/** Validates feature number `index` (0-based) and returns its geometry (rewound) and properties ({} if null). */
export function validateFeature(feature: unknown, index: number): ValidFeature {
  try {
    if (typeof feature !== 'object' || feature === null || Array.isArray(feature)) {
      fail('is not an object');
    }
    const f = feature as Record<string, unknown>;
    if (f.type !== 'Feature') fail(`has type ${JSON.stringify(f.type)?.slice(0, 40)}, expected "Feature"`);
    geometry(f.geometry, 'geometry');
    const p = f.properties;
    if (p !== null && p !== undefined && (typeof p !== 'object' || Array.isArray(p))) {
      fail('properties must be an object or null');
    }
    const g = f.geometry as Record<string, unknown>;
    if (g.type === 'Polygon' || g.type === 'MultiPolygon' || g.type === 'GeometryCollection')
      rewind(g, false);
    return { geometry: g, properties: (p ?? {}) as Record<string, unknown> };
  } catch (e) {
    if (e instanceof GeometryError)
      throw badRequest(`Feature ${index}: ${e.message}.`, { featureIndex: index });
    throw e;
  }
}
