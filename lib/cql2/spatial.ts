import { badRequest } from '#lib/errors.ts';
import { type BboxLiteral, type Expr, type Geometry, isOp, positionsOf, SPATIAL_OPS } from './ast.ts';
import { CQL2_LIMITS } from './limits.ts';

/**
 * A filter's spatial literals (docs/cql2.md, "Cost"): the vertex limits on them, checked as the filter is
 * parsed, and what each spatial predicate with a literal costs per feature, which a dataset's read
 * (lib/geodatasets/read/cql2/cost.ts) multiplies by the features it meets.
 */

/** One spatial predicate comparing the features with a literal (`vertices` of it; `bbox` in the filter CRS). */
export interface SpatialTerm {
  op: string;
  vertices: number;
  bbox?: [number, number, number, number];
}

/**
 * Predicates PostGIS answers through GEOS's full relate graph, built anew per feature: their cost grows with
 * the literal's vertices times the features. The others use a prepared (indexed) literal, kept across rows.
 */
const RELATE_OPS = new Set(['s_touches', 's_crosses', 's_overlaps', 's_disjoint']);

/** Units one feature costs a predicate with a literal of `vertices` (measured: docs/cql2.md, "Cost"). */
export function unitsPerFeature(op: string, vertices: number): number {
  return RELATE_OPS.has(op) ? vertices : Math.floor(vertices / 16);
}

function isObject(e: Expr): e is Exclude<Expr, string | number | boolean | Expr[]> {
  return typeof e === 'object' && e !== null && !Array.isArray(e);
}

/** A literal's vertices and bounding box (in its CRS's axis order), or undefined for anything else. */
function literal(e: Expr): Omit<SpatialTerm, 'op'> | undefined {
  if (!isObject(e)) return undefined;
  if ('bbox' in e) {
    const b = (e as BboxLiteral).bbox;
    const [x0, y0, x1, y1] = b.length === 6 ? [b[0], b[1], b[3], b[4]] : b;
    return { vertices: 5, bbox: [x0, y0, x1, y1] };
  }
  if ('type' in e && !('op' in e)) {
    const p = positionsOf(e as Geometry);
    if (p.length === 0) return { vertices: 0 };
    const xs = p.map((q) => q[0]);
    const ys = p.map((q) => q[1]);
    return { vertices: p.length, bbox: [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)] };
  }
  return undefined;
}

/** Every spatial predicate of the filter that compares with a literal. */
export function spatialTerms(ast: Expr): SpatialTerm[] {
  const out: SpatialTerm[] = [];
  const walk = (e: Expr): void => {
    if (Array.isArray(e)) {
      e.forEach(walk);
      return;
    }
    if (!isObject(e) || !isOp(e)) return;
    if ((SPATIAL_OPS as readonly string[]).includes(e.op)) {
      for (const a of e.args) {
        const l = literal(a);
        if (l) out.push({ op: e.op, ...l });
      }
    }
    e.args.forEach(walk);
  };
  walk(ast);
  return out;
}

/** 400 naming `filter` when one geometry literal, or all of them, have more vertices than the limits. */
export function checkVertices(ast: Expr): void {
  const counts: number[] = [];
  const walk = (e: Expr): void => {
    if (Array.isArray(e)) e.forEach(walk);
    else if (!isObject(e)) return;
    else if (isOp(e)) e.args.forEach(walk);
    else if ('type' in e) counts.push(positionsOf(e as Geometry).length);
  };
  walk(ast);
  const most = Math.max(0, ...counts);
  if (most > CQL2_LIMITS.maxGeometryVertices)
    throw badRequest(
      `'filter' has a geometry of ${most} vertices; the limit is ${CQL2_LIMITS.maxGeometryVertices} per geometry (docs/cql2.md, "Limits").`,
    );
  const total = counts.reduce((a, b) => a + b, 0);
  if (total > CQL2_LIMITS.maxVertices)
    throw badRequest(
      `'filter' has ${total} vertices in its geometries; the limit is ${CQL2_LIMITS.maxVertices} per filter (docs/cql2.md, "Limits").`,
    );
}
