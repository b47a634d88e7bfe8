import type { Fragment } from '#lib/db/fragments.ts';
import type { Queryable } from '#lib/db/index.ts';

/**
 * The SQL of CQL2's arithmetic operators (docs/cql2.md, "Arithmetic"), on float8, each written out.
 *
 * A NULL operand makes the expression NULL (the requirement), and so does an expression without a finite
 * float8 value: a division (`/`, `%`, `div`) by zero, a result past ±1.8e308 or nearer zero than 1e-308,
 * `0 ^ -1`, a negative number to a fractional power. PostgreSQL raises an error for each of those, which
 * would fail the whole request for one feature's value; the standard defines no value for them, so they
 * are unknown, as a missing value is, and a comparison with one is not true. Each case is decided before
 * the operation runs (a CASE, whose arms PostgreSQL evaluates in order; a zero operand is settled before
 * any logarithm is taken): no operation errs.
 * `div` is integer division truncated toward zero (SQL's `div`); `%` the remainder with the dividend's
 * sign (SQL's `mod`).
 */

/** ln(largest float8) ≈ 709.78 and ln(smallest normal) ≈ -708.4: a result between them is finite and not 0. */
const LN_RANGE = 708;
/** The largest float8. */
const MAX = 1.7976931348623157e308;

export function arithmeticSql(sql: Queryable, op: string, a: Fragment, b: Fragment): Fragment {
  // |a·b| and |a/b| from the logarithms, so that neither operation is tried when it would overflow.
  const lnMul = sql`(ln(abs(${a})) + ln(abs(${b})))`;
  const lnDiv = sql`(ln(abs(${a})) - ln(abs(${b})))`;
  const quotient = sql`(case when ${b} = 0 then null when ${a} = 0 then (case when ${b} is not null then 0::float8 end)
    when abs(${lnDiv}) < ${LN_RANGE}::float8 then ${a} / ${b} end)`;
  switch (op) {
    case '+':
      return sql`(case when sign(${a}) <> sign(${b}) or abs(${a}) <= ${MAX}::float8 - abs(${b}) then ${a} + ${b} end)`;
    case '-':
      return sql`(case when sign(${a}) = sign(${b}) or abs(${a}) <= ${MAX}::float8 - abs(${b}) then ${a} - ${b} end)`;
    case '*':
      return sql`(case when ${a} = 0 or ${b} = 0 then (case when ${a} is not null and ${b} is not null then 0::float8 end)
        when abs(${lnMul}) < ${LN_RANGE}::float8 then ${a} * ${b} end)`;
    case '/':
      return quotient;
    case 'div':
      return sql`trunc(${quotient})`;
    case '%':
      return sql`(case when ${b} = 0 then null else mod(${a}::numeric, ${b}::numeric)::float8 end)`;
    case '^':
      return sql`(case when ${a} = 0 then (case when ${b} > 0 then 0::float8 when ${b} = 0 then 1::float8 end)
        when ${a} < 0 and ${b} <> trunc(${b}) then null
        when abs(${b}) > 1e9::float8 then (case when abs(${a}) = 1 then power(${a}, ${b}) end)
        when abs(${b} * ln(abs(${a}))) < ${LN_RANGE}::float8 then power(${a}, ${b}) end)`;
    default:
      throw new Error(`not an arithmetic operator: ${op}`);
  }
}
