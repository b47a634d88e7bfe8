import { compileCql2, compileCql2WithCost, type Operand, type SqlTarget } from '#lib/cql2/compile.ts';
import type { Cql2Filter } from '#lib/cql2/filter.ts';
import { CQL2_COST, CQL2_LIMITS } from '#lib/cql2/limits.ts';
import { spatialTerms, unitsPerFeature as unitsPerFeatureOf } from '#lib/cql2/spatial.ts';
import type { Queryable } from '#lib/db/index.ts';
import { sqlTextOf } from '#lib/db/sqlText.ts';
import { badRequest } from '#lib/errors.ts';
import type { Geodataset } from '#lib/geodatasets/catalog.ts';
import { sqlNumeric } from '#lib/geodatasets/numeric.ts';
import { type ExtraCondition, type ReadFilters, sqlColumn, sqlJsonTime, sqlPropPath } from '../filters.ts';
import { estimateCost } from './cost.ts';
import { inCostlyLane } from './lane.ts';
import { type QueryableField, type Queryables, readQueryables } from './queryables.ts';

/** A filter compiled for a dataset: the read condition (per table alias) and its cost per feature. */
export interface CompiledFilter {
  condition: ExtraCondition;
  /** Units per feature of its comparisons and values (costWeights.ts); spatial predicates apart. */
  unitsPerFeature: number;
}

/**
 * A CQL2 filter as a geodataset read condition (`ReadFilters.cql2`, docs/cql2.md): the dataset's queryables
 * are read once, and the filter is compiled once here so that an unknown property, a type mismatch or SQL
 * past the statement limit is a 400 before any answer starts; `sqlWhere` calls the result per table alias.
 */
export async function cql2ReadFilter(
  sql: Queryable,
  ds: Geodataset,
  filter: Cql2Filter,
): Promise<CompiledFilter> {
  const q = await readQueryables(sql, ds);
  const { unitsPerFeature } = compileCql2WithCost(filter.ast, cql2Target(sql, ds, q, 't'), filter.crs);
  // Measured as the Data API receives it, on every driver, so answers never differ by database mode.
  const chars = sqlTextOf((s) => compileCql2(filter.ast, cql2Target(s, ds, q, 't'), filter.crs)).length;
  if (chars > CQL2_LIMITS.maxSqlChars)
    throw badRequest(
      `'filter' compiles to ${chars.toLocaleString('en-US')} characters of SQL; the limit is ${CQL2_LIMITS.maxSqlChars.toLocaleString('en-US')} (a statement may hold at most 65,536; docs/cql2.md, "Limits").`,
    );
  const condition: ExtraCondition = (alias) =>
    compileCql2(filter.ast, cql2Target(sql, ds, q, alias), filter.crs);
  return { condition, unitsPerFeature };
}

/** How a read runs its statements, for the cost estimate (docs/cql2.md, "Cost"). */
export interface ReadShape {
  /**
   * The read is keyset-paged (`featureChunks`: no `stats`, `id`, `offset` or `noDuplicates`): each
   * statement's id span is narrowed to `statementUnits`, so only a cost per feature over
   * `maxUnits / minSpan` (or its spatial predicates' candidates) can refuse it.
   */
  chunked?: boolean;
  /** The lon/lat box the read is restricted to through the GiST index (a vector tile's). */
  box?: [number, number, number, number];
}

/**
 * `read` of `f` with the CQL2 filter's condition added (unchanged without a filter). The filter's cost is
 * estimated first (docs/cql2.md, "Cost"): 400 naming `filter` above the limit, and a costly one runs in its
 * process's costly-read lane, for the whole read (`read` returns once the answer is built or sent).
 */
export async function readWithCql2<T>(
  sql: Queryable,
  ds: Geodataset,
  f: ReadFilters,
  filter: Cql2Filter | undefined,
  read: (f: ReadFilters) => Promise<T>,
  shape: ReadShape = {},
): Promise<T> {
  if (!filter) return read(f);
  const { condition, unitsPerFeature } = await cql2ReadFilter(sql, ds, filter);
  const withFilter: ReadFilters = { ...f, cql2: condition };
  let features: number | undefined;
  // Spatial predicates included: each statement of a keyset read stays within `statementUnits`.
  const spatial = spatialTerms(filter.ast).reduce((a, t) => a + unitsPerFeatureOf(t.op, t.vertices), 0);
  if (shape.chunked && unitsPerFeature + spatial > 0) {
    features = Math.max(
      CQL2_COST.minSpan,
      Math.floor(CQL2_COST.statementUnits / (unitsPerFeature + spatial)),
    );
    withFilter.maxSpan = features;
  }
  // A read restricted to a bbox (the items' `bbox`, the legacy `minx…`) meets only the features in it.
  const b = f.bbox && !f.noDuplicates ? f.bbox : undefined;
  const box = shape.box ?? (b && ([b.minx, b.miny, b.maxx, b.maxy] as [number, number, number, number]));
  const units = await estimateCost(sql, ds, filter.ast, filter.crs, unitsPerFeature, { features, box });
  return units > CQL2_COST.costlyUnits ? inCostlyLane(() => read(withFilter)) : read(withFilter);
}

/** The type two values of a property compare as (docs/cql2.md, "Queryables"). */
function typedOf(field: QueryableField): Operand['typed'] {
  if (field.format === 'date') return 'date';
  if (field.format === 'date-time') return 'instant';
  if (field.type === 'number' || field.type === 'integer') return 'number';
  if (field.type === 'string') return 'text';
  if (field.type === 'boolean') return 'boolean';
  return undefined;
}

/** The compiler's view of dataset `ds` (its queryables `q`) under table alias `alias`. */
export function cql2Target(sql: Queryable, ds: Geodataset, q: Queryables, alias?: string): SqlTarget {
  return {
    sql,
    queryablesHint: `/api/ogc/collections/${ds.name}/queryables`,
    property(name) {
      const field = q.get(name);
      if (!field) return undefined;
      if (field.column === 'geom') return { kind: 'geometry', sql: sqlColumn(sql, 'geom', alias) };
      if (field.column === 'id') return { kind: 'number', sql: sql`${sqlColumn(sql, 'id', alias)}::float8` };
      if (field.column) return { kind: 'instant', sql: sqlColumn(sql, field.column, alias) };
      return { kind: 'json', sql: sqlPropPath(sql, ds, field.path!, alias), typed: typedOf(field) };
    },
    jsonNumber: (v) => sqlNumeric(sql, v),
    jsonTime: (v) => sqlJsonTime(sql, v),
  };
}
