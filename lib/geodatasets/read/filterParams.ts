import type { Fragment } from '#lib/db/fragments.ts';
import { badRequest } from '#lib/errors.ts';
import { parseIsoInstant } from '#lib/iso8601.ts';
import { numberLiteral } from '../numeric.ts';
import { isTrue, MAX_FIELDS, MAX_PATH_LENGTH, type ReadFilterInput } from './readParams.ts';

/**
 * The read filters of `GET /get` (geojson and mvt), intersect, aggregations and TileJSON from their
 * declared parameters (readParams.ts): pure functions on typed values for what a schema cannot say, 400
 * naming the parameter. The SQL they turn into is in `filters.ts` (`sqlWhere`, the one place).
 */
/** `like` (a case-insensitive substring) is search's only: `filters` refuses it. */
export type Op = '>' | '<' | '=' | 'in' | 'like';
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
  /**
   * An OGC CQL2 filter's condition (docs/cql2.md), compiled for this dataset by `cql2ReadFilter`
   * (read/cql2/readFilter.ts) and ANDed with the others. Set by `runRead` (query.ts), not by `parseReadFilters`.
   */
  cql2?: ExtraCondition;
  /**
   * The most ids one statement of a keyset-paged read (`featureChunks`) may look at: set with `cql2` from the
   * filter's cost per feature, so each statement stays within the cost limit (docs/cql2.md, "Cost").
   */
  maxSpan?: number;
}

/** A condition another module builds for a read: called per table alias (the noDuplicates subquery has its own). */
export type ExtraCondition = (alias?: string) => Fragment;

/** The spec's default `format`: treated as "any ISO 8601" (docs/geodatasets-read.md, "Time": as a real pattern it is wrong). */
export const DEFAULT_FORMAT = 'YYYY-MM-DDTHH:MI:SSZ';

const SEGMENT = /^[\p{L}\p{N}_\-:@#/ ]+$/u;

/**
 * A property key as a path: dot-separated segments of letters, digits, space, `_ - : @ # /`.
 * Quotes, semicolons, brackets and the like are refused (400) even though the path is bound.
 */
export function parsePath(value: unknown, param: string): string[] {
  if (typeof value !== 'string' || value === '' || value.length > MAX_PATH_LENGTH) {
    throw badRequest(`'${param}' must be a property path of 1-${MAX_PATH_LENGTH} characters.`);
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

/**
 * The paths of a list parameter: its comma-separated text or a JSON body's array (`key`) and jQuery's
 * repeated form (`key[]`), deduplicated, in order; the declaration bounds each (readParams.ts), and the
 * distinct paths together are at most `max`. Undefined when none is given.
 */
export function pathList(
  key: string,
  values: (string | string[] | null | undefined)[],
  max = MAX_FIELDS,
): string[][] | undefined {
  const names = values
    .flat()
    .flatMap((v) => (typeof v === 'string' ? v.split(',') : []))
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (names.length === 0) return undefined;
  const unique = [...new Set(names)];
  if (unique.length > max) throw badRequest(`'${key}' names more than ${max} fields.`);
  return unique.map((p) => parsePath(p, key));
}

/** A declared string parameter as given: an empty one is absent (the MMGIS client sends `starttime=`). */
function given<T>(v: T | null | undefined): T | undefined {
  return v === undefined || v === null || v === '' ? undefined : v;
}

function parseTime(input: ReadFilterInput, out: ReadFilters) {
  const startProp = given(input.startProp);
  const endProp = given(input.endProp);
  const starttime = given(input.starttime);
  const endtime = given(input.endtime);
  let format = given(input.format);
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
      const n = numberLiteral(v);
      if (n === undefined) {
        throw badRequest(`'filters' value ${JSON.stringify(v).slice(0, 40)} for '${key}' is not a number.`);
      }
      return n;
    });
    out.push({ path, op: op as Op, type: type as FilterType, values });
  }
  return out;
}

/**
 * The read filters of a request from its declared, already validated parameters (readParams.ts; types,
 * lengths and ranges are the schema's): what a schema cannot say is checked here, 400 naming the parameter.
 */
export function parseReadFilters(input: ReadFilterInput): ReadFilters {
  const out: ReadFilters = { filters: [], noDuplicates: isTrue(input.noDuplicates) };
  const box = [input.minx, input.miny, input.maxx, input.maxy].map(given);
  if (box.some((v) => v !== undefined)) {
    if (box.some((v) => v === undefined))
      throw badRequest(`'minx', 'miny', 'maxx' and 'maxy' must be given together.`);
    const [minx, miny, maxx, maxy] = box as number[];
    if (minx > maxx) throw badRequest(`'minx' (${minx}) must not be greater than 'maxx' (${maxx}).`);
    if (miny > maxy) throw badRequest(`'miny' (${miny}) must not be greater than 'maxy' (${maxy}).`);
    out.bbox = { minx, miny, maxx, maxy };
  }
  parseTime(input, out);
  const g = given(input.group_id);
  if (g !== undefined) out.groupId = g;
  const id = given(input.id);
  if (id !== undefined) out.id = id;
  const circle = given(input.spatialFilter);
  if (circle !== undefined) out.circle = parseCircle(circle);
  out.filters = parsePropertyFilters(given(input.filters));
  return out;
}

/** `spatialFilter`: `lat,lng,radius` (radius in meters, > 0). */
export function parseCircle(text: string): { lat: number; lng: number; radius: number } {
  const parts = text.split(',').map((s) => s.trim());
  const nums = parts.map(Number);
  if (parts.length !== 3 || parts.some((p) => p === '') || nums.some((n) => !Number.isFinite(n))) {
    throw badRequest(`'spatialFilter' must be lat,lng,radius (three numbers; radius in meters).`);
  }
  const [lat, lng, radius] = nums;
  if (lat < -90 || lat > 90) throw badRequest(`'spatialFilter' latitude must be within [-90, 90].`);
  if (lng < -180 || lng > 180) throw badRequest(`'spatialFilter' longitude must be within [-180, 180].`);
  if (!(radius > 0)) throw badRequest(`'spatialFilter' radius must be greater than 0 meters.`);
  return { lat, lng, radius };
}
