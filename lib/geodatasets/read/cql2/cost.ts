import type { Expr } from '#lib/cql2/ast.ts';
import type { FilterCrs } from '#lib/cql2/crs.ts';
import { CQL2_COST } from '#lib/cql2/limits.ts';
import { spatialTerms, unitsPerFeature } from '#lib/cql2/spatial.ts';
import type { Fragment } from '#lib/db/fragments.ts';
import type { Queryable } from '#lib/db/index.ts';
import { badRequest } from '#lib/errors.ts';
import { type Geodataset, sqlTable } from '#lib/geodatasets/catalog.ts';

/**
 * What a filter costs on a dataset (docs/cql2.md, "Cost"): an estimate of the work before the read runs,
 * refused with a 400 above `CQL2_COST.maxUnits`. PGlite cannot cancel a running statement (its
 * `statement_timeout` never fires: one WASM thread), so on the embedded database the estimate is the only
 * bound, and it is the same on the server. The spatial literals' own limits are lib/cql2/spatial.ts.
 */

/** A bounding box in the filter CRS as a lon/lat envelope. */
function envelope(sql: Queryable, crs: FilterCrs, b: [number, number, number, number]): Fragment {
  let [x0, y0, x1, y1] = crs === 'EPSG:4326' ? [b[1], b[0], b[3], b[2]] : b;
  // A box across the antimeridian (west > east): its features are counted over every longitude.
  if (x0 > x1) [x0, x1] = crs === 'EPSG:3857' ? [-20037508.3428, 20037508.3428] : [-180, 180];
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
