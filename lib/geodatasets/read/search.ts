import type { Fragment } from '#lib/db/fragments.ts';
import type { Queryable } from '#lib/db/index.ts';
import { badRequest } from '#lib/errors.ts';
import { type Geodataset, sqlTable } from '../catalog.ts';
import { numberLiteral, sqlNumeric } from '../numeric.ts';
import {
  type Op,
  type PropertyFilter,
  parsePath,
  parseReadFilters,
  type ReadFilters,
  sqlPropPath,
  sqlWhere,
  withReadErrors,
} from './filters.ts';
import { MAX_LIMIT, streamFeaturesJson } from './geojson.ts';
import { isTrue, type ReadFilterInput } from './readParams.ts';

const OPERATORS = ['=', '<', '>', 'in', 'like'] as const;
const WRAP = { before: '{"status":"success","body":', after: '}' };

/**
 * POST /search (docs/contract.md#4-geodatasets-api), in the forms of the MMGIS map client, as `{status:'success', body:[features]}`
 * text built by the database (in pieces, featuresText.ts), at most 10,000 features, `minx/miny/maxx/maxy` restricting every form:
 * - `{key, value, operator?, type?}`: the property at the dot path `key` compared with `value` (`=` on the
 *   value's text by default: `"5"` finds 5 and "5"; `<`, `>`, `in` with a `$` list as in `filters`; `like`
 *   a case-insensitive substring);
 * - `{last: true}`: the feature with the highest id;
 * - `{id, offset: 'first'|'last'|n, orderBy?}`: the feature `n` places after (before, when negative)
 *   feature `id` in `orderBy` order (numbers, then text, then id) or id order; `first`/`last` the ends.
 */
export async function* readSearch(
  sql: Queryable,
  ds: Geodataset,
  body: Record<string, unknown>,
): AsyncGenerator<string> {
  // The bbox as the endpoint declared it (lib/geodatasets/read/readParams.ts).
  const box = parseReadFilters(pick(body, ['minx', 'miny', 'maxx', 'maxy']) as ReadFilterInput);
  const base: ReadFilters = { filters: [], noDuplicates: false, bbox: box.bbox };
  const hasKey = body.key !== undefined && body.key !== null && body.key !== '';
  const last = isTrue(body.last as boolean | string | undefined);
  if (!hasKey && (last || (body.id !== undefined && body.id !== null))) {
    const id = await navigate(sql, ds, base, body, last);
    if (id === undefined) {
      yield `${WRAP.before}[]${WRAP.after}`;
      return;
    }
    yield* streamFeaturesJson(sql, ds, { ...base, id }, { offset: 0 }, WRAP);
    return;
  }
  const filter = parseSearchFilter(body);
  yield* streamFeaturesJson(sql, ds, { ...base, filters: [filter] }, { offset: 0, limit: MAX_LIMIT }, WRAP);
}

function pick(o: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => o[k] !== undefined).map((k) => [k, o[k]]));
}

/** `{key, value, operator?, type?}` as one property filter; 400 naming the field. */
export function parseSearchFilter(body: Record<string, unknown>): PropertyFilter {
  const path = parsePath(body.key, 'key');
  const { value } = body;
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
    throw badRequest(`'value' must be a string, number or boolean.`);
  }
  const operator = body.operator ?? '=';
  if (!OPERATORS.includes(operator as (typeof OPERATORS)[number])) {
    throw badRequest(`'operator' must be one of ${OPERATORS.join(', ')}.`);
  }
  const type = body.type ?? 'string';
  if (type !== 'string' && type !== 'number') throw badRequest(`'type' must be string or number.`);
  const text = String(value);
  const parts = operator === 'in' ? text.split('$') : [text];
  if (parts.length > 1000) throw badRequest(`'value' lists more than 1000 values.`);
  if (type === 'number' && operator !== 'like') {
    const values = parts.map((p) => {
      const n = numberLiteral(p);
      if (n === undefined) {
        throw badRequest(`'value' ${JSON.stringify(p).slice(0, 40)} is not a number (type=number).`);
      }
      return n;
    });
    return { path, op: operator as Op, type: 'number', values };
  }
  return { path, op: operator as Op, type: 'string', values: parts };
}

/** The id of the feature a navigation form names, or undefined when there is none. */
async function navigate(
  sql: Queryable,
  ds: Geodataset,
  base: ReadFilters,
  body: Record<string, unknown>,
  last: boolean,
): Promise<number | undefined> {
  const table = sqlTable(sql, ds);
  const where = sqlWhere(sql, ds, base, 't');
  if (last) {
    const [row] = await sql`select max(t.id) as id from ${table} t where ${where}`;
    return row?.id == null ? undefined : Number(row.id);
  }
  const id = Number(body.id);
  if (!Number.isSafeInteger(id)) throw badRequest(`'id' must be an integer feature id.`);
  const offset = body.offset ?? 0;
  let step = 0;
  if (offset !== 'first' && offset !== 'last') {
    step =
      typeof offset === 'number'
        ? offset
        : typeof offset === 'string' && /^-?\d{1,9}$/.test(offset)
          ? Number(offset)
          : Number.NaN;
    if (!Number.isSafeInteger(step) || Math.abs(step) > 1e9) {
      throw badRequest(`'offset' must be 'first', 'last' or an integer.`);
    }
  }
  let order: Fragment = sql`t.id`;
  if (body.orderBy !== undefined && body.orderBy !== null && body.orderBy !== '') {
    const v = sqlPropPath(sql, ds, parsePath(body.orderBy, 'orderBy'), 't');
    order = sql`${sqlNumeric(sql, v)} nulls last, (${v} #>> '{}') collate "C" nulls last, t.id`;
  }
  const target =
    offset === 'first'
      ? sql`1`
      : offset === 'last'
        ? sql`(select count(*) from o)`
        : sql`(select least(greatest(c.rn + ${step}::bigint, 1), (select count(*) from o)) from o c where c.id = ${id}::bigint)`;
  const [row] = await withReadErrors(
    () => sql`with o as (select t.id, row_number() over (order by ${order}) as rn from ${table} t where ${where})
      select o.id from o where o.rn = ${target}`,
  );
  return row?.id == null ? undefined : Number(row.id);
}
