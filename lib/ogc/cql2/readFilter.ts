import type { Queryable } from '#lib/db/index.ts';
import type { Geodataset } from '#lib/geodatasets/catalog.ts';
import { sqlNumeric } from '#lib/geodatasets/numeric.ts';
import {
  type ExtraCondition,
  type ReadFilters,
  sqlColumn,
  sqlJsonTime,
  sqlPropPath,
} from '#lib/geodatasets/read/filters.ts';
import { compileCql2, type SqlTarget } from './compile.ts';
import { estimateCost } from './cost.ts';
import type { Cql2Filter } from './filter.ts';
import { inCostlyLane } from './lane.ts';
import { CQL2_COST } from './limits.ts';
import { type Queryables, readQueryables } from './queryables.ts';

/**
 * A CQL2 filter as a geodataset read condition (`ReadFilters.cql2`, docs/cql2.md): the dataset's queryables
 * are read once, and the filter is compiled once here so that an unknown property or a type mismatch is a
 * 400 before any answer starts; `sqlWhere` calls the result per table alias.
 */
export async function cql2ReadFilter(
  sql: Queryable,
  ds: Geodataset,
  filter: Cql2Filter,
): Promise<ExtraCondition> {
  const q = await readQueryables(sql, ds);
  const build: ExtraCondition = (alias) => compileCql2(filter.ast, cql2Target(sql, ds, q, alias), filter.crs);
  build('t');
  return build;
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
): Promise<T> {
  if (!filter) return read(f);
  const withFilter = { ...f, cql2: await cql2ReadFilter(sql, ds, filter) };
  const units = await estimateCost(sql, ds, filter.ast, filter.crs);
  return units > CQL2_COST.costlyUnits ? inCostlyLane(() => read(withFilter)) : read(withFilter);
}

function cql2Target(sql: Queryable, ds: Geodataset, q: Queryables, alias?: string): SqlTarget {
  return {
    sql,
    queryablesHint: `/api/ogc/collections/${ds.name}/queryables`,
    property(name) {
      const field = q.get(name);
      if (!field) return undefined;
      if (field.column === 'geom') return { kind: 'geometry', sql: sqlColumn(sql, 'geom', alias) };
      if (field.column === 'id') return { kind: 'number', sql: sql`${sqlColumn(sql, 'id', alias)}::float8` };
      if (field.column) return { kind: 'instant', sql: sqlColumn(sql, field.column, alias) };
      return { kind: 'json', sql: sqlPropPath(sql, ds, field.path!, alias) };
    },
    jsonNumber: (v) => sqlNumeric(sql, v),
    jsonTime: (v) => sqlJsonTime(sql, v),
  };
}
