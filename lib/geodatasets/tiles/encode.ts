import vtpbf, { type VtFeature } from 'vt-pbf';
import { EXTENT } from '#lib/geodatasets/read/tileParams.ts';

/**
 * The JS half of the embedded database's tile path: GeoJSON geometries already clipped, mapped to tile
 * pixels and snapped in SQL (`sqlTileRows`) become MVT features, encoded with vt-pbf. Rules follow what
 * `ST_AsMVTGeom` does: a collection keeps its members of the highest dimension, lines need two distinct
 * points, polygon rings need a non-zero area, exterior rings get a positive area in tile coordinates
 * (clockwise on screen, MVT spec 4.3.4.4) and holes a negative one.
 */

export interface TileRow {
  id: number;
  /** GeoJSON geometry (object or text) in tile pixel coordinates. */
  g: unknown;
  attributes: Record<string, unknown> | string | null;
  /** The feature's size bound (`sqlSizeBound`), for the size guard. */
  b?: number | string;
}

type Pos = number[];
interface Geom {
  type: string;
  coordinates?: any;
  geometries?: Geom[];
}

const DIM: Record<string, number> = {
  Point: 0,
  MultiPoint: 0,
  LineString: 1,
  MultiLineString: 1,
  Polygon: 2,
  MultiPolygon: 2,
};

/** Shoelace sum (twice the signed area) with y down: positive = clockwise on screen. */
function area2(ring: Pos[]): number {
  let s = 0;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    s += ring[j][0] * ring[i][1] - ring[i][0] * ring[j][1];
  }
  return s;
}

function flatten(g: Geom): Geom[] {
  if (g.type === 'GeometryCollection') return (g.geometries ?? []).flatMap(flatten);
  return [g];
}

function dropRepeats(line: Pos[]): Pos[] {
  const out: Pos[] = [];
  for (const p of line) {
    const last = out[out.length - 1];
    if (!last || last[0] !== p[0] || last[1] !== p[1]) out.push([p[0], p[1]]);
  }
  return out;
}

function polygonRings(rings: Pos[][]): Pos[][] {
  const out: Pos[][] = [];
  for (let i = 0; i < rings.length; i++) {
    const ring = dropRepeats(rings[i]);
    const a = ring.length >= 4 ? area2(ring) : 0;
    if (a === 0) {
      // A polygon whose exterior collapsed is dropped with its holes; a collapsed hole alone.
      if (i === 0) return [];
      continue;
    }
    if (i === 0 ? a < 0 : a > 0) ring.reverse();
    out.push(ring);
  }
  return out;
}

/** One GeoJSON geometry in tile pixels → the MVT type and geometry of vt-pbf, or undefined when empty. */
export function toVtGeometry(g: Geom): Pick<VtFeature, 'type' | 'geometry'> | undefined {
  const parts = flatten(g).filter((p) => p.type in DIM);
  if (parts.length === 0) return undefined;
  const dim = Math.max(...parts.map((p) => DIM[p.type]));
  const keep = parts.filter((p) => DIM[p.type] === dim);
  if (dim === 0) {
    const pts: Pos[] = keep.flatMap((p) =>
      p.type === 'Point' ? (p.coordinates?.length ? [p.coordinates] : []) : (p.coordinates ?? []),
    );
    return pts.length ? { type: 1, geometry: pts.map((c) => [c[0], c[1]]) } : undefined;
  }
  if (dim === 1) {
    const lines: Pos[][] = keep
      .flatMap((p) => (p.type === 'LineString' ? [p.coordinates ?? []] : (p.coordinates ?? [])))
      .map(dropRepeats)
      .filter((l: Pos[]) => l.length >= 2);
    return lines.length ? { type: 2, geometry: lines } : undefined;
  }
  const polys: Pos[][][] = keep.flatMap((p) =>
    p.type === 'Polygon' ? [p.coordinates ?? []] : (p.coordinates ?? []),
  );
  const rings = polys.flatMap(polygonRings);
  return rings.length ? { type: 3, geometry: rings } : undefined;
}

/** Attributes as MVT values: strings, numbers, booleans; anything else as JSON text; nulls left out. */
function toTags(attributes: TileRow['attributes']): VtFeature['tags'] {
  const a = typeof attributes === 'string' ? JSON.parse(attributes) : (attributes ?? {});
  const tags: VtFeature['tags'] = {};
  for (const [k, v] of Object.entries(a as Record<string, unknown>)) {
    if (v === null || v === undefined) continue;
    tags[k] =
      typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? v : JSON.stringify(v);
  }
  return tags;
}

/** Encodes the rows of `sqlTileRows` as one MVT layer named `layer`; `n` counts the features kept. */
export function encodeTile(layer: string, rows: TileRow[]): { tile: Buffer; n: number } {
  const features: VtFeature[] = [];
  for (const r of rows) {
    const g = typeof r.g === 'string' ? (JSON.parse(r.g) as Geom) : (r.g as Geom);
    if (!g) continue;
    const vt = toVtGeometry(g);
    if (!vt) continue;
    features.push({ id: Number(r.id), ...vt, tags: toTags(r.attributes) });
  }
  if (features.length === 0) return { tile: Buffer.alloc(0), n: 0 };
  const buf = vtpbf.fromGeojsonVt({ [layer]: { features } }, { version: 2, extent: EXTENT });
  return { tile: Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength), n: features.length };
}
