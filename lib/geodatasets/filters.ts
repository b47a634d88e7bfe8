import type postgres from 'postgres';
import type { Queryable } from '#lib/db/index.ts';
import { badRequest } from '#lib/http/errors.ts';
import { type Geodataset, safeTable } from './catalog.ts';

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

export type Op = '>' | '<' | '=' | 'in';
export type FilterType = 'string' | 'number';

export interface PropertyFilter {
  /** Dot path split into segments, e.g. `a.b` → `['a','b']`. */
  path: string[];
  op: Op;
  type: FilterType;
  /** One value for `>`, `<`, `=`; the `$`-separated list for `in`. Numbers when `type` is number. */
  values: (string | number)[];
}

export interface TimeWindow {
  /** Property path used for the start (undefined → the indexed `start_time` column). */
  startPath?: string[];
  endPath?: string[];
  /** The request's start/end as given. */
  starttime?: string;
  endtime?: string;
  /** ISO instants once known: set by the parser for the default format, by `resolveReadFilters` otherwise. */
  start?: string;
  end?: string;
  /** A custom `to_timestamp` pattern; undefined for the default (any ISO 8601). */
  format?: string;
}

export interface ReadFilters {
  bbox?: { minx: number; miny: number; maxx: number; maxy: number };
  time?: TimeWindow;
  /** The raw startProp/endProp names (compared with the dataset's configured props by `sqlWhere`). */
  startProp?: string;
  endProp?: string;
  groupId?: string;
  id?: number;
  circle?: { lat: number; lng: number; radius: number };
  filters: PropertyFilter[];
  noDuplicates: boolean;
  /** A GeoJSON geometry (validated JSON text, lon/lat) the features must intersect: POST /intersect. */
  intersect?: string;
}

/** The spec's default `format`: treated as "any ISO 8601" (PLATFORM.md: as a real pattern it is wrong). */
export const DEFAULT_FORMAT = 'YYYY-MM-DDTHH:MI:SSZ';

/** API.md section 5: a JSON number, or a string that is entirely a number literal. */
export const NUMERIC_RE = '^-?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?$';
const NUMERIC = new RegExp(NUMERIC_RE);

const SEGMENT = /^[\p{L}\p{N}_\-:@#/ ]+$/u;

/**
 * A property key as a path: dot-separated segments of letters, digits, space, `_ - : @ # /`.
 * Quotes, semicolons, brackets and the like are refused (400) even though the path is bound.
 */
export function parsePath(value: unknown, param: string): string[] {
  if (typeof value !== 'string' || value === '' || value.length > 256) {
    throw badRequest(`'${param}' must be a property path of 1-256 characters.`);
  }
  const segments = value.split('.');
  for (const s of segments) {
    if (!SEGMENT.test(s)) {
      throw badRequest(
        `'${param}' has an invalid property path ${JSON.stringify(value).slice(0, 80)}: use dot-separated names of letters, digits, spaces, '_', '-', ':', '@', '#', '/'.`,
      );
    }
  }
  return segments;
}

function str(query: Record<string, unknown>, key: string): string | undefined {
  const v = query[key];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (typeof v !== 'string') throw badRequest(`'${key}' must be a string.`);
  return v;
}

function num(query: Record<string, unknown>, key: string): number | undefined {
  const s = str(query, key);
  if (s === undefined) return undefined;
  const n = Number(s.trim());
  if (s.trim() === '' || !Number.isFinite(n))
    throw badRequest(`'${key}' must be a number (got ${JSON.stringify(s).slice(0, 40)}).`);
  return n;
}

/** `true`/`false`/`1`/`0` (any case); absent → false; anything else → 400. */
export function parseBool(query: Record<string, unknown>, key: string): boolean {
  const v = query[key];
  if (v === undefined || v === null || v === '') return false;
  if (typeof v === 'boolean') return v;
  const s = String(v).toLowerCase();
  if (s === 'true' || s === '1') return true;
  if (s === 'false' || s === '0') return false;
  throw badRequest(`'${key}' must be true or false.`);
}

/** An integer parameter (or undefined), 400 naming it otherwise. */
export function parseInteger(query: Record<string, unknown>, key: string): number | undefined {
  const n = num(query, key);
  if (n === undefined) return undefined;
  if (!Number.isSafeInteger(n)) throw badRequest(`'${key}' must be an integer.`);
  return n;
}

const ISO =
  /^(\d{4})(?:-?(\d{2})(?:-?(\d{2})(?:[T ](\d{2})(?::?(\d{2})(?::?(\d{2})(?:[.,](\d+))?)?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?)?)?$/i;

/**
 * Any ISO 8601 date or date-time (extended or basic format; a time without an offset is UTC) → ISO instant
 * with milliseconds, or undefined when the text is not a valid one (e.g. February 30).
 */
export function parseIsoInstant(text: string): string | undefined {
  const m = ISO.exec(text.trim());
  if (!m) return undefined;
  const [, y, mo = '01', d = '01', h = '00', mi = '00', s = '00', frac = '', off] = m;
  const nums = [y, mo, d, h, mi, s].map(Number);
  const [Y, M, D, H, MI, S] = nums;
  if (M < 1 || M > 12 || D < 1 || D > 31 || H > 24 || MI > 59 || S > 60) return undefined;
  if (H === 24 && (MI !== 0 || S !== 0)) return undefined;
  const ms = Number(`0.${frac || '0'}`) * 1000;
  let t = Date.UTC(Y, M - 1, D, H, MI, Math.min(S, 59), ms);
  const check = new Date(Date.UTC(Y, M - 1, D));
  if (check.getUTCFullYear() !== Y || check.getUTCMonth() !== M - 1 || check.getUTCDate() !== D)
    return undefined;
  if (off && off.toUpperCase() !== 'Z') {
    const om = /^([+-])(\d{2}):?(\d{2})?$/.exec(off)!;
    const minutes = Number(om[2]) * 60 + Number(om[3] ?? 0);
    if (Number(om[2]) > 23 || Number(om[3] ?? 0) > 59) return undefined;
    t -= (om[1] === '+' ? 1 : -1) * minutes * 60000;
  }
  if (!Number.isFinite(t)) return undefined;
  return new Date(t).toISOString();
}

function parseTime(query: Record<string, unknown>, out: ReadFilters) {
  const startProp = str(query, 'startProp');
  const endProp = str(query, 'endProp');
  const starttime = str(query, 'starttime');
  const endtime = str(query, 'endtime');
  let format = str(query, 'format');
  if (format !== undefined && format.length > 100)
    throw badRequest(`'format' must be at most 100 characters.`);
  if (format === DEFAULT_FORMAT) format = undefined;
  out.startProp = startProp;
  out.endProp = endProp;
  const startPath = startProp !== undefined ? parsePath(startProp, 'startProp') : undefined;
  const endPath = endProp !== undefined ? parsePath(endProp, 'endProp') : undefined;
  if (starttime === undefined && endtime === undefined) return;
  const w: TimeWindow = { startPath, endPath, starttime, endtime, format };
  if (format === undefined) {
    for (const [key, v] of [
      ['starttime', starttime],
      ['endtime', endtime],
    ] as const) {
      if (v === undefined) continue;
      const iso = parseIsoInstant(v);
      if (!iso) {
        throw badRequest(
          `'${key}' must be an ISO 8601 date or date-time (e.g. 2024-01-31T12:00:00Z), got ${JSON.stringify(v).slice(0, 60)}; send 'format' for another pattern.`,
        );
      }
      if (key === 'starttime') w.start = iso;
      else w.end = iso;
    }
    if (w.start && w.end && w.start > w.end) throw badRequest(`'starttime' must not be after 'endtime'.`);
  }
  out.time = w;
}

const OPS: readonly Op[] = ['>', '<', '=', 'in'];
const MAX_FILTERS = 50;
const MAX_IN_VALUES = 1000;
const TYPES: readonly FilterType[] = ['string', 'number'];

/**
 * `filters`: comma-separated `key+op+type+value` entries (ANDed). The separator within an entry is `+`
 * (sent literally or as `%2B`) or a space (a `+` decoded as form encoding). Everything after the third
 * separator is the value, so values may contain `+` or spaces. `in` takes a `$`-separated list.
 */
export function parsePropertyFilters(text: string | undefined): PropertyFilter[] {
  if (text === undefined || text.trim() === '') return [];
  const out: PropertyFilter[] = [];
  const entries = text.split(',');
  if (entries.length > MAX_FILTERS) throw badRequest(`'filters' has more than ${MAX_FILTERS} entries.`);
  for (const raw of entries) {
    const entry = raw.replace(/^\s+/, '');
    if (entry === '') continue;
    const m = /^([^+ ]+)[+ ]([^+ ]+)[+ ]([^+ ]+)[+ ](.*)$/s.exec(entry);
    if (!m) {
      throw badRequest(
        `'filters' entry ${JSON.stringify(raw).slice(0, 80)} must be key+op+type+value (op: >, <, =, in; type: string, number).`,
      );
    }
    const [, key, op, type, value] = m;
    const path = parsePath(key, 'filters');
    if (!OPS.includes(op as Op))
      throw badRequest(`'filters' has an unknown op ${JSON.stringify(op).slice(0, 20)}: use >, <, = or in.`);
    if (!TYPES.includes(type as FilterType)) {
      throw badRequest(
        `'filters' has an unknown type ${JSON.stringify(type).slice(0, 20)}: use string or number.`,
      );
    }
    const parts = op === 'in' ? value.split('$') : [value];
    if (parts.length > MAX_IN_VALUES)
      throw badRequest(`'filters' 'in' list for '${key}' has more than ${MAX_IN_VALUES} values.`);
    const values = parts.map((v) => {
      if (type === 'string') return v;
      const t = v.trim();
      if (!NUMERIC.test(t) || !Number.isFinite(Number(t))) {
        throw badRequest(`'filters' value ${JSON.stringify(v).slice(0, 40)} for '${key}' is not a number.`);
      }
      return Number(t);
    });
    out.push({ path, op: op as Op, type: type as FilterType, values });
  }
  return out;
}

/**
 * Parses and validates every read filter of a request (query string or POST body). Throws 400 naming the
 * parameter. Unknown parameters are ignored (paging, `_source`, `stats`, tile address are parsed elsewhere).
 */
export function parseReadFilters(query: Record<string, unknown>): ReadFilters {
  const out: ReadFilters = { filters: [], noDuplicates: parseBool(query, 'noDuplicates') };
  const box = ['minx', 'miny', 'maxx', 'maxy'].map((k) => num(query, k));
  if (box.some((v) => v !== undefined)) {
    if (box.some((v) => v === undefined))
      throw badRequest(`'minx', 'miny', 'maxx' and 'maxy' must be given together.`);
    const [minx, miny, maxx, maxy] = box as number[];
    if (minx > maxx) throw badRequest(`'minx' (${minx}) must not be greater than 'maxx' (${maxx}).`);
    if (miny > maxy) throw badRequest(`'miny' (${miny}) must not be greater than 'maxy' (${maxy}).`);
    out.bbox = { minx, miny, maxx, maxy };
  }
  parseTime(query, out);
  const g = str(query, 'group_id');
  if (g !== undefined) out.groupId = g;
  const id = parseInteger(query, 'id');
  if (id !== undefined) out.id = id;
  const circle = str(query, 'spatialFilter');
  if (circle !== undefined) {
    const parts = circle.split(',').map((s) => s.trim());
    const nums = parts.map(Number);
    if (parts.length !== 3 || parts.some((p) => p === '') || nums.some((n) => !Number.isFinite(n))) {
      throw badRequest(`'spatialFilter' must be lat,lng,radius (three numbers; radius in meters).`);
    }
    const [lat, lng, radius] = nums;
    if (lat < -90 || lat > 90) throw badRequest(`'spatialFilter' latitude must be within [-90, 90].`);
    if (lng < -180 || lng > 180) throw badRequest(`'spatialFilter' longitude must be within [-180, 180].`);
    if (!(radius > 0)) throw badRequest(`'spatialFilter' radius must be greater than 0 meters.`);
    out.circle = { lat, lng, radius };
  }
  out.filters = parsePropertyFilters(str(query, 'filters'));
  return out;
}

// ---------------------------------------------------------------------------------------------- SQL

type Fragment = postgres.PendingQuery<any>;
const ALIAS = /^[a-z_][a-z0-9_]*$/;

/** A column reference, qualified by `alias` when one is given. */
export function sqlColumn(sql: Queryable, name: string, alias?: string): Fragment {
  if (alias !== undefined && !ALIAS.test(alias)) throw new Error(`bad alias ${alias}`);
  return sql.unsafe(alias ? `${alias}.${name}` : name) as unknown as Fragment;
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

/** A jsonb value as float8 under the numeric rule of API.md section 5; NULL otherwise. */
export function sqlNumeric(sql: Queryable, v: Fragment): Fragment {
  return sql`(case when jsonb_typeof(${v}) = 'number' then (${v} #>> '{}')::float8
    when jsonb_typeof(${v}) = 'string' and (${v} #>> '{}') ~ ${NUMERIC_RE} then (${v} #>> '{}')::float8 end)`;
}

const ISO_SQL =
  '^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])([T ]([01]\\d|2[0-3]):[0-5]\\d(:[0-5]\\d(\\.\\d+)?)?)?';
const OFFSET_SQL = '(Z|z|[+-]\\d{2}(:?\\d{2})?)$';

/**
 * A time read from a property, per feature: a JSON number is epoch milliseconds; a string is ISO 8601
 * (validated by a regex before the cast; no offset = UTC) or, with a custom `format`, `to_timestamp`.
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
    return sql`(case when jsonb_typeof(${v}) = 'string' then to_timestamp(${v} #>> '{}', ${format}) end)`;
  }
  return sql`(case jsonb_typeof(${v})
    when 'number' then to_timestamp((${v} #>> '{}')::float8 / 1000)
    when 'string' then (case when (${v} #>> '{}') ~ ${`${ISO_SQL}${OFFSET_SQL}`} then (${v} #>> '{}')::timestamptz
                             when (${v} #>> '{}') ~ ${`${ISO_SQL}$`} then (${v} #>> '{}')::timestamp at time zone 'UTC' end)
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
  if (iso !== undefined) return sql`${iso}::timestamptz`;
  if (raw === undefined) return undefined;
  return sql`to_timestamp(${raw}, ${w.format ?? DEFAULT_FORMAT})`;
}

/** API.md section 4: [start, end] intersects the window; one of the two alone is an instant; neither: no match. */
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
 * The grouping key of API.md section 5 for noDuplicates and stats: `group_id` (a NULL group_id is a group
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
  const table = sql.unsafe(safeTable(ds.table)) as unknown as Fragment;
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
