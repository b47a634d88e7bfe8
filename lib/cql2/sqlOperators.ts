import type { Fragment } from '#lib/db/fragments.ts';
import type { Queryable } from '#lib/db/index.ts';
import type { SPATIAL_OPS } from './ast.ts';

/**
 * The SQL of each CQL2 operator the compiler writes (compile.ts), each written out from a fixed table:
 * no text of a filter is spliced into SQL. Comparisons, the PostGIS spatial predicates, and the temporal
 * relations on intervals [start, end] by the standard's definitions.
 */

/** A time interval as SQL: its start and end (an instant is [t, t]). */
export interface Interval {
  start: Fragment;
  end: Fragment;
}

/** The PostGIS predicate of a spatial operator (each written out: no text is spliced into SQL). */
export function spatialSql(
  sql: Queryable,
  op: (typeof SPATIAL_OPS)[number],
  a: Fragment,
  b: Fragment,
): Fragment {
  switch (op) {
    case 's_intersects':
      return sql`ST_Intersects(${a}, ${b})`;
    case 's_equals':
      return sql`ST_Equals(${a}, ${b})`;
    case 's_disjoint':
      return sql`ST_Disjoint(${a}, ${b})`;
    case 's_touches':
      return sql`ST_Touches(${a}, ${b})`;
    case 's_within':
      return sql`ST_Within(${a}, ${b})`;
    case 's_overlaps':
      return sql`ST_Overlaps(${a}, ${b})`;
    case 's_crosses':
      return sql`ST_Crosses(${a}, ${b})`;
    case 's_contains':
      return sql`ST_Contains(${a}, ${b})`;
  }
}

/** `a op b` for a comparison operator (each written out). */
export function compareSql(sql: Queryable, op: string, a: Fragment, b: Fragment): Fragment {
  switch (op) {
    case '=':
      return sql`(${a} = ${b})`;
    case '<>':
      return sql`(${a} <> ${b})`;
    case '<':
      return sql`(${a} < ${b})`;
    case '>':
      return sql`(${a} > ${b})`;
    case '<=':
      return sql`(${a} <= ${b})`;
    case '>=':
      return sql`(${a} >= ${b})`;
    default:
      throw new Error(`not a comparison operator: ${op}`);
  }
}

/** `a op b` for a temporal relation of intervals; undefined for an operator this server does not know. */
export function temporalSql(sql: Queryable, op: string, a: Interval, b: Interval): Fragment | undefined {
  switch (op) {
    case 't_after':
      return sql`(${a.start} > ${b.end})`;
    case 't_before':
      return sql`(${a.end} < ${b.start})`;
    case 't_contains':
      return sql`(${a.start} < ${b.start} and ${a.end} > ${b.end})`;
    case 't_disjoint':
      return sql`(${a.end} < ${b.start} or ${a.start} > ${b.end})`;
    case 't_during':
      return sql`(${a.start} > ${b.start} and ${a.end} < ${b.end})`;
    case 't_equals':
      return sql`(${a.start} = ${b.start} and ${a.end} = ${b.end})`;
    case 't_finishedBy':
      return sql`(${a.start} < ${b.start} and ${a.end} = ${b.end})`;
    case 't_finishes':
      return sql`(${a.start} > ${b.start} and ${a.end} = ${b.end})`;
    case 't_intersects':
      return sql`(${a.start} <= ${b.end} and ${a.end} >= ${b.start})`;
    case 't_meets':
      return sql`(${a.end} = ${b.start})`;
    case 't_metBy':
      return sql`(${a.start} = ${b.end})`;
    case 't_overlappedBy':
      return sql`(${a.start} > ${b.start} and ${a.start} < ${b.end} and ${a.end} > ${b.end})`;
    case 't_overlaps':
      return sql`(${a.start} < ${b.start} and ${a.end} > ${b.start} and ${a.end} < ${b.end})`;
    case 't_startedBy':
      return sql`(${a.start} = ${b.start} and ${a.end} > ${b.end})`;
    case 't_starts':
      return sql`(${a.start} = ${b.start} and ${a.end} < ${b.end})`;
    default:
      return undefined;
  }
}

/** The comparisons each temporal relation makes (as written in `temporalSql`). */
export const TEMPORAL_COMPARISONS: Record<string, number> = {
  t_after: 1,
  t_before: 1,
  t_contains: 2,
  t_disjoint: 2,
  t_during: 2,
  t_equals: 2,
  t_finishedBy: 2,
  t_finishes: 2,
  t_intersects: 2,
  t_meets: 1,
  t_metBy: 1,
  t_overlappedBy: 3,
  t_overlaps: 3,
  t_startedBy: 2,
  t_starts: 2,
};
