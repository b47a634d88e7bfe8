import type { Fragment } from '#lib/db/fragments.ts';
import type { Queryable } from '#lib/db/index.ts';
import type { ARRAY_OPS } from './ast.ts';

/**
 * The SQL of CQL2's array predicates (docs/cql2.md, "Array functions") on two jsonb values, each written
 * out. Both arrays are sets (the requirement): order and repetition do not count, and elements are equal
 * when their JSON values are (jsonb equality: `1` and `1.0` are, `1` and `"1"` are not; a nested array is
 * one element, equal to an equal array). When either side is not an array (a missing property, a string,
 * JSON null) the predicate is NULL: unknown, as a comparison with a missing value is.
 */
export function arraySql(sql: Queryable, op: (typeof ARRAY_OPS)[number], a: Fragment, b: Fragment): Fragment {
  const subset = (x: Fragment, y: Fragment) =>
    sql`not exists (select 1 from jsonb_array_elements(${x}) cql2_x
      where not exists (select 1 from jsonb_array_elements(${y}) cql2_y where cql2_y = cql2_x))`;
  let test: Fragment;
  switch (op) {
    case 'a_equals':
      test = sql`(${subset(a, b)} and ${subset(b, a)})`;
      break;
    case 'a_contains':
      test = subset(b, a);
      break;
    case 'a_containedBy':
      test = subset(a, b);
      break;
    case 'a_overlaps':
      test = sql`exists (select 1 from jsonb_array_elements(${a}) cql2_x
        join jsonb_array_elements(${b}) cql2_y on cql2_y = cql2_x)`;
      break;
  }
  return sql`(case when jsonb_typeof(${a}) = 'array' and jsonb_typeof(${b}) = 'array' then ${test} end)`;
}
