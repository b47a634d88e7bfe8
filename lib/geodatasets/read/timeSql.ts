import type { Fragment } from '#lib/db/fragments.ts';
import { timestampSql } from '#lib/db/fragments.ts';
import type { Queryable } from '#lib/db/index.ts';
import { badRequest } from '#lib/errors.ts';
import { ISO_TIMESTAMP_SQL, MAX_STORED_TIME_CHARS } from '#lib/iso8601.ts';
import type { Geodataset } from '../catalog.ts';
import { sqlColumn, sqlPropPath } from './columns.ts';
import { DEFAULT_FORMAT, type ReadFilters, type TimeWindow } from './filterParams.ts';

/**
 * The time filter of a read (docs/geodatasets-read.md, "Time") as SQL: a feature's start and end (the
 * indexed columns, or a property read as a time), the request's window (`sqlTimeWindow`, which `sqlWhere`
 * ANDs with the others), and `resolveReadFilters`, which has a custom `format`'s request times parsed by
 * the database before the read.
 */

/**
 * A time read from a property, per feature: a JSON number is epoch milliseconds; a string is ISO 8601 in
 * the stored-value profile of lib/iso8601.ts (its regex checks the text before the cast; no offset = UTC),
 * or with a custom `format`, `to_timestamp`.
 */
function sqlPropTime(
  sql: Queryable,
  ds: Geodataset,
  path: string[],
  format: string | undefined,
  alias?: string,
): Fragment {
  const v = sqlPropPath(sql, ds, path, alias);
  if (format !== undefined) {
    // A text the pattern does not fit is no time (null), not an error for the whole read.
    return sql`(case when jsonb_typeof(${v}) = 'string' then mmgis_to_timestamp_or_null(${v} #>> '{}', ${format}) end)`;
  }
  return sqlJsonTime(sql, v);
}

/**
 * Epoch milliseconds the database reads as a time: PostgreSQL's timestamps start in 4713 BC (about
 * −2.1e14 ms) and JavaScript's end at 8.64e15 ms. A JSON number outside is no time (the cast would raise).
 */
const MIN_EPOCH_MS = -2e14;
const MAX_EPOCH_MS = 8.64e15;

/**
 * Whether a text the stored-value regexes matched (leading white space, then `YYYY-MM-DD`) names a real
 * day: year 0001 or later, and the month's own days (29 February only in a leap year). The regexes bound
 * the month to 01–12 and the day to 01–31; the cast raises on the rest (`2024-02-30`, `0000-01-01`), and one
 * such feature once made every temporal filter on its property a 400. Pure arithmetic: nothing here raises.
 */
function sqlRealDay(sql: Queryable, text: Fragment): Fragment {
  const s = sql`btrim(${text}, E' \t\n\r\f\v')`;
  const year = sql`substr(${s}, 1, 4)::int`;
  const day = sql`substr(${s}, 9, 2)::int`;
  return sql`(${year} > 0 and (${day} <= 28 or ${day} <= case substr(${s}, 6, 2)::int
    when 2 then case when ${year} % 4 = 0 and (${year} % 100 <> 0 or ${year} % 400 = 0) then 29 else 28 end
    when 4 then 30 when 6 then 30 when 9 then 30 when 11 then 30 else 31 end))`;
}

/**
 * A jsonb value as a time: a JSON number is epoch milliseconds, a string ISO 8601 (see `sqlPropTime`).
 * A value that is no readable time (a rolled-over date, a number past JavaScript's range) is null: that
 * feature has no time, and the filter goes on for the others (docs/geodatasets-read.md, "Time").
 */
export function sqlJsonTime(sql: Queryable, v: Fragment): Fragment {
  const text = sql`(${v} #>> '{}')`;
  // Nested CASEs, not AND: only a CASE guarantees the day is read after the regex matched.
  return sql`(case jsonb_typeof(${v})
    when 'number' then (case when ${text}::numeric between ${MIN_EPOCH_MS}::numeric and ${MAX_EPOCH_MS}::numeric
                             then to_timestamp(${text}::float8 / 1000) end)
    when 'string' then (case
      when length(${text}) > ${MAX_STORED_TIME_CHARS}::int then null
      when ${text} ~ ${ISO_TIMESTAMP_SQL.withOffset} then (case when ${sqlRealDay(sql, text)} then ${text}::timestamptz end)
      when ${text} ~ ${ISO_TIMESTAMP_SQL.withoutOffset} then (case when ${sqlRealDay(sql, text)} then ${text}::timestamp at time zone 'UTC' end)
      end)
    end)`;
}

/** The start (or end) expression: the indexed column when the prop is the dataset's or the column's name. */
function timeExpr(
  sql: Queryable,
  ds: Geodataset,
  f: ReadFilters,
  which: 'start' | 'end',
  alias?: string,
): Fragment {
  const w = f.time!;
  const prop = which === 'start' ? f.startProp : f.endProp;
  const path = which === 'start' ? w.startPath : w.endPath;
  const column = which === 'start' ? 'start_time' : 'end_time';
  const configured = which === 'start' ? ds.startProp : ds.endProp;
  if (prop === undefined || path === undefined || prop === column || prop === configured) {
    return sqlColumn(sql, column, alias);
  }
  return sqlPropTime(sql, ds, path, w.format, alias);
}

function boundTime(sql: Queryable, w: TimeWindow, which: 'start' | 'end'): Fragment | undefined {
  const iso = which === 'start' ? w.start : w.end;
  const raw = which === 'start' ? w.starttime : w.endtime;
  if (iso !== undefined) return timestampSql(sql, iso);
  if (raw === undefined) return undefined;
  return sql`to_timestamp(${raw}, ${w.format ?? DEFAULT_FORMAT})`;
}

/**
 * A time window that also keeps the features with no time (neither a start nor an end): the OGC items'
 * `datetime`, as Part 1 requires (`/req/core/fc-time-response` C; docs/ogc.md, "datetime"). The reads of
 * `/api/geodatasets/get` keep MMGIS's rule: a feature with no time matches no window.
 */
export interface UntimedMatchingWindow extends TimeWindow {
  untimed: 'match';
}

function keepsUntimed(w: TimeWindow): w is UntimedMatchingWindow {
  return (w as Partial<UntimedMatchingWindow>).untimed === 'match';
}

/**
 * docs/contract.md#4-geodatasets-api: [start, end] intersects the window; one of the two alone is an
 * instant; neither: no match (an `UntimedMatchingWindow`: a match).
 */
export function sqlTimeWindow(
  sql: Queryable,
  ds: Geodataset,
  f: ReadFilters,
  alias?: string,
): Fragment | undefined {
  const w = f.time;
  if (!w) return undefined;
  const s = timeExpr(sql, ds, f, 'start', alias);
  const e = timeExpr(sql, ds, f, 'end', alias);
  const from = boundTime(sql, w, 'start');
  const to = boundTime(sql, w, 'end');
  const parts: Fragment[] = [];
  // Written so the (start_time, end_time) btree can serve `start_time <= $to`.
  if (to) parts.push(sql`(${s} <= ${to} or (${s} is null and ${e} <= ${to}))`);
  if (from) parts.push(sql`(${e} >= ${from} or (${e} is null and ${s} >= ${from}))`);
  if (parts.length === 0) return undefined;
  const window = parts.reduce((acc, p) => sql`${acc} and ${p}`);
  return keepsUntimed(w) ? sql`(${window} or (${s} is null and ${e} is null))` : window;
}

/**
 * Parses a custom `format`'s request times in the database (UTC) and refuses (400) a pattern that parses
 * nothing sensible: the parsed instant, printed back with the same pattern, must give the request's text
 * (compared without case and leading zeros). The default format is already resolved by the parser.
 */
export async function resolveReadFilters(sql: Queryable, f: ReadFilters): Promise<ReadFilters> {
  const w = f.time;
  if (!w || w.format === undefined) return f;
  const out: TimeWindow = { ...w };
  for (const key of ['starttime', 'endtime'] as const) {
    const raw = w[key];
    if (raw === undefined) continue;
    let row: { t: Date | null; back: string | null } | undefined;
    try {
      [row] = (await sql`select to_timestamp(${raw}, ${w.format}) as t,
        to_char(to_timestamp(${raw}, ${w.format}), ${w.format}) as back`) as unknown as {
        t: Date | null;
        back: string | null;
      }[];
    } catch (e) {
      throw badRequest(
        `'${key}' ${JSON.stringify(raw).slice(0, 60)} does not match 'format' ${JSON.stringify(w.format)}: ${(e as Error).message}.`,
      );
    }
    const normal = (s: string) =>
      s
        .toLowerCase()
        .replace(/\d+/g, (d) => String(Number(d)))
        .replace(/\s+/g, ' ')
        .trim();
    if (!row?.t || !row.back || normal(row.back) !== normal(raw) || Number.isNaN(new Date(row.t).getTime())) {
      throw badRequest(
        `'format' ${JSON.stringify(w.format)} does not parse '${key}' ${JSON.stringify(raw).slice(0, 60)} sensibly (read back as ${JSON.stringify(row?.back ?? null)}); use PostgreSQL to_timestamp patterns such as YYYY-MM-DD"T"HH24:MI:SS, or omit 'format' for ISO 8601.`,
      );
    }
    if (key === 'starttime') out.start = new Date(row.t).toISOString();
    else out.end = new Date(row.t).toISOString();
  }
  if (out.start && out.end && out.start > out.end)
    throw badRequest(`'starttime' must not be after 'endtime'.`);
  return { ...f, time: out };
}
