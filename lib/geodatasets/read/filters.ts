import { type Fragment, sqlIdentifier, timestampSql } from '#lib/db/fragments.ts';
import type { Queryable } from '#lib/db/index.ts';
import { badRequest } from '#lib/errors.ts';
import { ISO_TIMESTAMP_SQL, MAX_STORED_TIME_CHARS } from '#lib/iso8601.ts';
import { type Geodataset, sqlTable } from '../catalog.ts';
import { sqlNumeric } from '../numeric.ts';
import { DEFAULT_FORMAT, type PropertyFilter, type ReadFilters, type TimeWindow } from './filterParams.ts';

export * from './filterParams.ts';

/**
 * The read filters shared by `GET /get` (geojson and mvt), intersect and aggregations: pure parsing of the
 * query string (`parseReadFilters`, 400 naming the parameter) and SQL fragment builders (`sqlWhere`).
 * Every value is a bound parameter; property keys are bound as `text[]` paths (`properties #> $1`); the
 * only identifiers spliced in are our own table name and a validated alias.
 *
 * noDuplicates is part of `sqlWhere`: the kept row of each group is chosen over the whole matched set
 * (a correlated `max(id) ... group by` subquery), so it does not depend on paging or on a tile envelope.
 *
 * A custom `format` is a `to_timestamp` pattern; call `resolveReadFilters` once before querying to have the
 * request's times parsed by the database and refused (400) when the pattern parses nothing sensible.
 * Without it, `sqlWhere` still works (the pattern is applied inline, unchecked).
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

/** The jsonb value at a property path. */
export function sqlPropPath(sql: Queryable, ds: Geodataset, path: string[], alias?: string): Fragment {
  return sql`(${sqlProps(sql, ds, alias)} #> ${path}::text[])`;
}

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

/** docs/contract.md#4-geodatasets-api: [start, end] intersects the window; one of the two alone is an instant; neither: no match. */
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
  return and(sql, parts);
}

const EARTH_RADIUS = 6371008.8;

/** `ST_DWithin` on the sphere, with a conservative degree envelope first so the GiST index is used. */
function sqlCircle(
  sql: Queryable,
  c: { lat: number; lng: number; radius: number },
  geom: Fragment,
): Fragment {
  const center = sql`ST_SetSRID(ST_MakePoint(${c.lng}::float8, ${c.lat}::float8), 4326)`;
  const exact = sql`ST_DWithin((${geom})::geography, (${center})::geography, ${c.radius}::float8, false)`;
  const dLat = ((c.radius / EARTH_RADIUS) * 180) / Math.PI;
  const lat0 = c.lat - dLat * 1.01 - 1e-9;
  const lat1 = c.lat + dLat * 1.01 + 1e-9;
  if (lat0 <= -89 || lat1 >= 89)
    return sql`(${geom} && ST_MakeEnvelope(-180, ${Math.max(lat0, -90)}::float8, 180, ${Math.min(lat1, 90)}::float8, 4326) and ${exact})`;
  const maxAbsLat = Math.max(Math.abs(lat0), Math.abs(lat1));
  const dLng = (dLat * 1.01) / Math.cos((maxAbsLat * Math.PI) / 180) + 1e-9;
  if (c.lng - dLng < -180 || c.lng + dLng > 180 || dLng >= 180) {
    return sql`(${geom} && ST_MakeEnvelope(-180, ${lat0}::float8, 180, ${lat1}::float8, 4326) and ${exact})`;
  }
  return sql`(${geom} && ST_MakeEnvelope(${c.lng - dLng}::float8, ${lat0}::float8, ${c.lng + dLng}::float8, ${lat1}::float8, 4326) and ${exact})`;
}

function sqlPropertyFilter(sql: Queryable, ds: Geodataset, pf: PropertyFilter, alias?: string): Fragment {
  const v = sqlPropPath(sql, ds, pf.path, alias);
  if (pf.op === 'like') return sql`strpos(lower(${v} #>> '{}'), lower(${String(pf.values[0])}::text)) > 0`;
  if (pf.type === 'number') {
    const n = sqlNumeric(sql, v);
    const nums = pf.values as number[];
    if (pf.op === 'in') return sql`${n} = any(${nums}::float8[])`;
    if (pf.op === '=') return sql`${n} = ${nums[0]}::float8`;
    if (pf.op === '>') return sql`${n} > ${nums[0]}::float8`;
    return sql`${n} < ${nums[0]}::float8`;
  }
  // Text of the value: strings without quotes, numbers and booleans as written; objects as JSON text.
  const t = sql`(${v} #>> '{}')`;
  const texts = pf.values as string[];
  if (pf.op === 'in') return sql`${t} = any(${texts}::text[])`;
  if (pf.op === '=') return sql`${t} = ${texts[0]}::text`;
  if (pf.op === '>') return sql`${t} > ${texts[0]}::text collate "C"`;
  return sql`${t} < ${texts[0]}::text collate "C"`;
}

function and(sql: Queryable, parts: Fragment[]): Fragment | undefined {
  if (parts.length === 0) return undefined;
  return parts.reduce((acc, p) => sql`${acc} and ${p}`);
}

/**
 * The grouping key of docs/contract.md#5-edge-cases-decided for noDuplicates and stats: `group_id` (a NULL group_id is a group
 * of its own, keyed by the row id) when the dataset has a groupIdProp, else the geometry's exact bytes.
 */
export function sqlGroupKey(sql: Queryable, ds: Geodataset, alias?: string): Fragment {
  if (ds.groupIdProp) {
    const g = sqlColumn(sql, 'group_id', alias);
    const id = sqlColumn(sql, 'id', alias);
    return sql`(case when ${g} is null then 'i' || ${id}::text else 'g' || ${g} end)`;
  }
  return sql`ST_AsEWKB(${sqlColumn(sql, 'geom', alias)})`;
}

/** Every filter but noDuplicates. */
function sqlMatch(sql: Queryable, ds: Geodataset, f: ReadFilters, alias?: string): Fragment | undefined {
  const geom = sqlColumn(sql, 'geom', alias);
  const parts: Fragment[] = [];
  if (f.id !== undefined) parts.push(sql`${sqlColumn(sql, 'id', alias)} = ${f.id}::bigint`);
  if (f.bbox) {
    const b = f.bbox;
    parts.push(
      sql`ST_Intersects(${geom}, ST_MakeEnvelope(${b.minx}::float8, ${b.miny}::float8, ${b.maxx}::float8, ${b.maxy}::float8, 4326))`,
    );
  }
  if (f.groupId !== undefined) parts.push(sql`${sqlColumn(sql, 'group_id', alias)} = ${f.groupId}::text`);
  const time = sqlTimeWindow(sql, ds, f, alias);
  if (time) parts.push(time);
  if (f.circle) parts.push(sqlCircle(sql, f.circle, geom));
  for (const pf of f.filters) parts.push(sqlPropertyFilter(sql, ds, pf, alias));
  if (f.intersect !== undefined) {
    parts.push(sql`ST_Intersects(${geom}, ST_SetSRID(ST_GeomFromGeoJSON(${f.intersect}::text), 4326))`);
  }
  if (f.cql2) parts.push(f.cql2(alias));
  return and(sql, parts);
}

/**
 * The WHERE condition of a read: `where ${sqlWhere(sql, ds, f, 't')}`; `true` when nothing filters.
 * With `noDuplicates`, only the highest id of each group (see `sqlGroupKey`) among the matched rows passes.
 * Set `noDuplicates: false` to get the plain matched set (e.g. for stats).
 */
export function sqlWhere(sql: Queryable, ds: Geodataset, f: ReadFilters, alias?: string): Fragment {
  const match = sqlMatch(sql, ds, f, alias);
  if (!f.noDuplicates) return match ?? sql`true`;
  const table = sqlTable(sql, ds);
  const inner = sqlMatch(sql, ds, f, 'd') ?? sql`true`;
  const id = sqlColumn(sql, 'id', alias);
  let dedup: Fragment;
  if (ds.groupIdProp) {
    dedup = sql`(${sqlColumn(sql, 'group_id', alias)} is null or ${id} in (
      select max(d.id) from ${table} d where ${inner} and d.group_id is not null group by d.group_id))`;
  } else {
    dedup = sql`${id} in (select max(d.id) from ${table} d where ${inner} group by ST_AsEWKB(d.geom))`;
  }
  return match ? sql`${match} and ${dedup}` : dedup;
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

/**
 * Runs a read query, turning the database's refusal of per-feature data (a time property that does not
 * parse with the given `format`, an out-of-range date) into 400 instead of 500.
 */
export async function withReadErrors<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    const code = (e as { code?: string })?.code;
    if (code && (code.startsWith('22') || code === '2201B')) {
      throw badRequest(
        `A feature value could not be read with the request's filters (${(e as Error).message}); check 'format', 'startProp' and 'endProp'.`,
      );
    }
    throw e;
  }
}
