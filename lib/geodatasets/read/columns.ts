import { type Fragment, sqlIdentifier } from '#lib/db/fragments.ts';
import type { Queryable } from '#lib/db/index.ts';
import type { Geodataset } from '../catalog.ts';

/**
 * A read's references to a dataset table's columns and properties (filters.ts, timeSql.ts and the
 * answers' SQL): the only identifiers spliced in are the table's own columns under a validated alias;
 * property keys are bound as `text[]` paths (`properties #> $1`).
 */

const ALIAS = /^[a-z_][a-z0-9_]*$/;

/** A column reference, qualified by `alias` when one is given. */
export function sqlColumn(sql: Queryable, name: string, alias?: string): Fragment {
  if (alias !== undefined && !ALIAS.test(alias)) throw new Error(`bad alias ${alias}`);
  return sqlIdentifier(sql, alias ? `${alias}.${name}` : name);
}

/** The properties column as jsonb (legacy `json` datasets are cast). */
export function sqlProps(sql: Queryable, ds: Geodataset, alias?: string): Fragment {
  const c = sqlColumn(sql, 'properties', alias);
  return ds.propertiesType === 'json' ? sql`(${c})::jsonb` : c;
}

/**
 * A row's values at several property paths, as rows `(i, j)`: `i` the path's place (from 1), `j` its jsonb
 * value; each path a bound `text[]`. `stats` (featureProps.ts) and three or more number filters
 * (filters.ts) read their paths through it, so the numeric rule over `j` is written once, not per path.
 */
export function sqlPathValues(sql: Queryable, ds: Geodataset, paths: string[][], alias?: string): Fragment {
  const list = paths.map((p, i) => sql`(${i + 1}::int, ${p}::text[])`).reduce((a, p) => sql`${a}, ${p}`);
  return sql`(select f.i,
      ${sqlProps(sql, ds, alias)} #> f.path as j from (values ${list}) f(i, path) offset 0)`;
}

/** The jsonb value at a property path. */
export function sqlPropPath(sql: Queryable, ds: Geodataset, path: string[], alias?: string): Fragment {
  return sql`(${sqlProps(sql, ds, alias)} #> ${path}::text[])`;
}
