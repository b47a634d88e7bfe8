import type { Fragment } from '#lib/db/fragments.ts';
import type { Queryable } from '#lib/db/index.ts';

/**
 * The numeric rule (docs/contract.md#5-edge-cases-decided), in one place for JS and SQL: a property value
 * counts as a number when it is a JSON number, or a string that is entirely a number literal
 * (`NUMERIC_TEXT`: no spaces, no `+`, no `Infinity`/`NaN`). For statistics and numeric filters, a poison
 * number (docs/geodatasets-read.md, "Poison numbers") does not count: a magnitude above `MAX_MAGNITUDE`,
 * a literal longer than `MAX_LITERAL` characters, or (in SQL, where the text goes through `numeric`) an
 * exponent of five digits or more.
 */

/** A number literal: the whole string (a regex source both JS and PostgreSQL read the same way). */
export const NUMERIC_TEXT = '^-?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?$';
const NUMERIC = new RegExp(NUMERIC_TEXT);

/** The largest magnitude that counts: its square, and the sum of up to 10^8 squares, stay within float8. */
export const MAX_MAGNITUDE = 1e150;

/** The longest numeric string that counts. */
export const MAX_LITERAL = 1000;

/** The number a stored property value counts as (statistics), or undefined. */
export function numericValue(v: unknown): number | undefined {
  let n: number | undefined;
  if (typeof v === 'number') n = v;
  else if (typeof v === 'string' && v.length <= MAX_LITERAL && NUMERIC.test(v)) n = Number(v);
  return n !== undefined && Math.abs(n) <= MAX_MAGNITUDE ? n : undefined;
}

/** A number literal a client sends as a filter value (surrounding spaces ignored), or undefined. */
export function numberLiteral(text: string): number | undefined {
  const t = text.trim();
  if (!NUMERIC.test(t)) return undefined;
  const n = Number(t);
  return Number.isFinite(n) ? n : undefined;
}

/**
 * A JSON value as float8 under the numeric rule; NULL otherwise, poison numbers included, never an error.
 * The text goes through `numeric` (exact, and it cannot overflow for the text admitted) before the range
 * check decides; a magnitude below 1e-300 counts as 0. `v` is jsonb (a jsonb number casts directly), or
 * json for the legacy tables (`computeStoredStats`), whose numbers are text as written (`1e99999`).
 */
export function sqlNumeric(sql: Queryable, v: Fragment, kind: 'jsonb' | 'json' = 'jsonb'): Fragment {
  const t = sql`(${v} #>> '{}')`;
  const literal = sql`length(${t}) <= ${MAX_LITERAL}::int and ${t} ~ ${NUMERIC_TEXT} and ${t} !~ '[eE][+-]?[0-9]{5}'`;
  const n =
    kind === 'jsonb'
      ? sql`(case when jsonb_typeof(${v}) = 'number' then (${v})::numeric
          when jsonb_typeof(${v}) = 'string' and ${literal} then ${t}::numeric end)`
      : sql`(case when json_typeof(${v}) in ('number', 'string') and ${literal} then ${t}::numeric end)`;
  return sql`(case when abs(${n}) <= ${MAX_MAGNITUDE}::numeric then
    (case when abs(${n}) < 1e-300 then 0 else ${n} end)::float8 end)`;
}
