import type { FromSchema } from 'json-schema-to-ts';
import { badRequest } from '#lib/errors.ts';
import type { Span } from './jsonScan.ts';
import { parseSpan } from './jsonScan.ts';
import { LazyGeojson, scanObject } from './lazyGeojson.ts';
import type { WriteOptions } from './write.ts';
import type { writeQuery } from './writeParams.ts';

/** A write request as the handlers receive it: what to do, the GeoJSON (still text) and the options. */
export interface WriteRequest {
  action: 'recreate' | 'append';
  geojson: LazyGeojson;
  opts: WriteOptions;
}

/** The declared query of these writes (writeParams.ts). */
type Query = FromSchema<typeof writeQuery>;

function first(...values: unknown[]): unknown {
  for (const v of values) if (v !== undefined && v !== null && v !== '') return v;
  return null;
}

function decode(v: string | undefined): string | undefined {
  if (v === undefined) return undefined;
  try {
    return decodeURIComponent(v);
  } catch {
    throw badRequest(`The path parameter ${JSON.stringify(v.slice(0, 80))} is not valid URL encoding.`);
  }
}

/** `:start_end_prop` is `startProp,endProp`; either part may be empty. */
export function splitStartEnd(p: string | undefined): { start?: string; end?: string } {
  const text = decode(p);
  if (!text) return {};
  const i = text.indexOf(',');
  const start = (i < 0 ? text : text.slice(0, i)).trim();
  const end = i < 0 ? '' : text.slice(i + 1).trim();
  return { start: start || undefined, end: end || undefined };
}

/**
 * POST /recreate: `{name, geojson, startProp, endProp, groupIdProp, featureIdProp, filename, action}`.
 * Members of the request body win over the same top-level members of the GeoJSON. `geojson` may also be
 * a JSON string holding the GeoJSON.
 */
export function parseRecreateBody(text: string): WriteRequest {
  const members = scanObject(text);
  const get = (k: string) => {
    const span = members.get(k);
    return span ? parseMember(text, span) : undefined;
  };
  const span = members.get('geojson');
  if (!span) throw badRequest("'geojson' is required: a GeoJSON FeatureCollection or Feature.");
  let geojson: LazyGeojson;
  const c = text.charCodeAt(span.start);
  if (c === 0x7b) geojson = LazyGeojson.fromSpan(text, span);
  else if (c === 0x22) {
    const inner = parseMember(text, span) as string;
    try {
      geojson = LazyGeojson.fromText(inner);
    } catch (e) {
      throw badRequest(`'geojson' (a string) does not hold a JSON object: ${(e as Error).message}`);
    }
  } else throw badRequest("'geojson' must be a GeoJSON FeatureCollection or Feature object.");
  const action = get('action') ?? 'recreate';
  if (action !== 'recreate' && action !== 'append') {
    throw badRequest(
      `'action' must be 'recreate' or 'append' (got ${JSON.stringify(action)?.slice(0, 40)}).`,
    );
  }
  const pick = (k: string) => first(get(k), geojson.member(k)) as string | null;
  return {
    action,
    geojson,
    opts: {
      name: get('name') as string,
      startProp: pick('startProp'),
      endProp: pick('endProp'),
      groupIdProp: pick('groupIdProp'),
      featureIdProp: pick('featureIdProp'),
      filename: pick('filename'),
    },
  };
}

/**
 * The forms whose body is the GeoJSON file itself: POST /append/:name[/:start_end_prop] and
 * POST /recreate/:name[/:start_end_prop]. Precedence: the GeoJSON's top-level members (`startProp`,
 * `endProp`, `groupIdProp`, `featureIdProp`, `filename`), then the `:start_end_prop` path pair, then the
 * query parameters (`start_prop`, `end_prop`, `group_id_prop`, `feature_id_prop`, `filename`).
 */
export function parseGeojsonBody(
  action: 'recreate' | 'append',
  text: string,
  path: { name?: string; start_end_prop?: string },
  query: Query,
): WriteRequest {
  const name = decode(path.name);
  if (name === undefined) throw badRequest("The geodataset 'name' is required in the path.");
  const geojson = LazyGeojson.fromText(text);
  const se = splitStartEnd(path.start_end_prop);
  const pick = (
    member: string,
    pathValue: string | undefined,
    queryKey: keyof typeof writeQuery.properties,
  ) => first(geojson.member(member), pathValue, query[queryKey]) as string | null;
  return {
    action,
    geojson,
    opts: {
      name,
      startProp: pick('startProp', se.start, 'start_prop'),
      endProp: pick('endProp', se.end, 'end_prop'),
      groupIdProp: pick('groupIdProp', undefined, 'group_id_prop'),
      featureIdProp: pick('featureIdProp', undefined, 'feature_id_prop'),
      filename: pick('filename', undefined, 'filename'),
    },
  };
}

function parseMember(text: string, span: Span): unknown {
  try {
    return parseSpan(text, span);
  } catch (e) {
    throw badRequest(`The request body is not valid JSON: ${(e as Error).message}.`);
  }
}
