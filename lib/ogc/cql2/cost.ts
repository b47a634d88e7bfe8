import type { Fragment } from '#lib/db/fragments.ts';
import type { Queryable } from '#lib/db/index.ts';
import { badRequest } from '#lib/errors.ts';
import { type Geodataset, sqlTable } from '#lib/geodatasets/catalog.ts';
import { type BboxLiteral, type Expr, type Geometry, isOp, positionsOf, SPATIAL_OPS } from './ast.ts';
import type { FilterCrs } from './crs.ts';
import { CQL2_COST, CQL2_LIMITS } from './limits.ts';

/**
 * What a filter's spatial predicates cost (docs/cql2.md, "Cost"): the vertex limits on its literals, and
 * an estimate of the work before the read runs, refused with a 400 above `CQL2_COST.maxUnits`. PGlite
 * cannot cancel a running statement (its `statement_timeout` never fires: one WASM thread), so on the
 * embedded database the estimate is the only bound, and it is the same on the server.
 */

/** One spatial predicate comparing the features with a literal (`vertices` of it; `bbox` in the filter CRS). */
interface SpatialTerm {
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

/** A bounding box in the filter CRS as a lon/lat envelope. */
function envelope(sql: Queryable, crs: FilterCrs, b: [number, number, number, number]): Fragment {
  const [x0, y0, x1, y1] = crs === 'EPSG:4326' ? [b[1], b[0], b[3], b[2]] : b;
  if (crs === 'EPSG:3857')
    return sql`(select ST_Transform(ST_MakeEnvelope(${x0}::float8, ${y0}::float8, ${x1}::float8, ${y1}::float8, 3857), 4326))`;
  return sql`ST_MakeEnvelope(${x0}::float8, ${y0}::float8, ${x1}::float8, ${y1}::float8, 4326)`;
}

/**
 * Features whose bounding box meets `bbox` (PostGIS answers every other feature from the boxes alone), up
 * to `cap`, and their vertices: one index scan of at most `cap` rows.
 */
async function candidates(
  sql: Queryable,
  ds: Geodataset,
  crs: FilterCrs,
  bbox: [number, number, number, number],
  cap: number,
): Promise<{ n: number; vertices: number }> {
  const [row] = await sql`
    select count(*)::int as n, coalesce(sum(ST_NPoints(c.geom)), 0)::float8 as vertices
    from (select t.geom from ${sqlTable(sql, ds)} t where t.geom && ${envelope(sql, crs, bbox)} limit ${cap}::int) c`;
  return { n: Number(row.n), vertices: Number(row.vertices) };
}

function tooCostly(units: number, perFeature: number): never {
  throw badRequest(
    `'filter' is too costly: about ${Math.round(units).toLocaleString('en-US')} units of work for one statement (${Math.round(perFeature).toLocaleString('en-US')} per feature for its comparisons and values, plus its spatial predicates' literal vertices compared with features), and the limit is ${CQL2_COST.maxUnits.toLocaleString('en-US')} per read (docs/cql2.md, "Cost"). Use fewer or simpler conditions, a geometry with fewer vertices, a smaller area, or S_INTERSECTS.`,
  );
}

/** Where a read evaluates the filter: at most `features` features per statement, or only those in `box`. */
export interface CostScope {
  /** Features one statement evaluates at most (a keyset-paged read's span); default the dataset's count. */
  features?: number;
  /** A lon/lat box the read is restricted to by the GiST index (a vector tile's): only its features count. */
  box?: [number, number, number, number];
}

/**
 * The estimated units of one statement of a read under the filter on `ds` (docs/cql2.md, "Cost"):
 * `perFeature` (the compiler's count of its comparisons and values) times the features a statement
 * evaluates, plus its spatial predicates. Without a database read while the upper bound (the dataset's
 * feature count) stays under `costlyUnits`; else a box counts its own features, and each spatial predicate
 * only the features its literal's bounding box meets (and their own vertices). 400 above `maxUnits`.
 */
export async function estimateCost(
  sql: Queryable,
  ds: Geodataset,
  ast: Expr,
  crs: FilterCrs,
  perFeature = 0,
  where: CostScope = {},
): Promise<number> {
  const terms = spatialTerms(ast);
  let features = Math.min(ds.numFeatures, where.features ?? ds.numFeatures);
  const spatialUpper = terms.reduce((a, t) => a + ds.numFeatures * unitsPerFeature(t.op, t.vertices), 0);
  const upper = features * perFeature + spatialUpper;
  if (upper <= CQL2_COST.costlyUnits) return upper;
  if (where.box && perFeature > 0) {
    const cap = Math.floor(CQL2_COST.maxUnits / perFeature) + 1;
    features = Math.min(features, (await candidates(sql, ds, 'CRS84', where.box, cap)).n);
  }
  let units = features * perFeature;
  if (units > CQL2_COST.maxUnits) tooCostly(units, perFeature);
  for (const t of terms) {
    const per = unitsPerFeature(t.op, t.vertices);
    if (!t.bbox) continue;
    const left = CQL2_COST.maxUnits - units;
    const cap = per > 0 ? Math.floor(left / per) + 1 : left + 1;
    const found = await candidates(sql, ds, crs, t.bbox, Math.max(1, cap));
    units += found.n * per + found.vertices;
    if (units > CQL2_COST.maxUnits) tooCostly(units, perFeature);
  }
  return units;
}
