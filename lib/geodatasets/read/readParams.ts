import type { FromSchema } from 'json-schema-to-ts';

/**
 * The declared read parameters of the geodatasets endpoints (docs/geodatasets-read.md, "Parameters"), as
 * JSON Schema property declarations the endpoints put into their `schema` (query and body). The bounds are
 * the schema's: every string a maxLength, every list a maxItems, every number a range, integers as
 * integers; the validator answers 400 naming the field. What a schema cannot say (the `filters`
 * mini-language, ISO 8601 times, a complete and non-inverted bbox) is checked by the pure functions of
 * filterParams.ts on the typed values. This module holds constants only: the gateway cache plugin reads
 * it at package time (serverless/plugins/gateway-cache.cjs).
 */

/** Longest property path (dot-separated) in `startProp`, `filters` keys, `_source`, `stats`. */
export const MAX_PATH_LENGTH = 256;
/** Most distinct `_source` paths (and `stats` fields) in one request. */
export const MAX_FIELDS = 100;
/** Longest dataset name (lib/geodatasets/catalog.ts). */
export const MAX_NAME_LENGTH = 128;
/** Largest integer parameter: JavaScript's safe integers (docs/geodatasets-read.md, "Poison numbers"). */
export const MAX_INTEGER = 9007199254740991;
/**
 * Bbox coordinates are lon/lat degrees; a wrapped map view (Leaflet's world copies at low zoom) sends
 * longitudes far beyond ±180, so the bound is wide: it only keeps the numbers finite.
 */
export const MAX_COORDINATE = 1_000_000;

/** A parameter the MMGIS client may send empty (`minx=`): an empty query value is null, as if absent. */
const blank = { type: 'null' } as const;

/** A name of a dataset (`layer`). */
export const layerParam = { type: 'string', maxLength: MAX_NAME_LENGTH } as const;

/** Comma-separated dataset names (`layers`): at most 100 (lib/geodatasets/read/fieldTypes.ts). */
export const layersParam = { type: 'string', maxLength: 100 * (MAX_NAME_LENGTH + 1) } as const;

/** `true`/`false`/`1`/`0` in any case (or a JSON boolean); read with `isTrue`. */
export const flagParam = {
  type: ['boolean', 'string'],
  maxLength: 5,
  pattern: '^([Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee]|1|0)?$',
} as const;

const coordinate = {
  anyOf: [{ type: 'number', minimum: -MAX_COORDINATE, maximum: MAX_COORDINATE }, blank],
} as const;
const count = { anyOf: [{ type: 'integer', minimum: 0, maximum: MAX_INTEGER }, blank] } as const;
/** A size that is clamped, not refused, below 1 (`limit=0` and `limit=-5` mean 1): any safe integer. */
const clamped = { anyOf: [{ type: 'integer', minimum: -MAX_INTEGER, maximum: MAX_INTEGER }, blank] } as const;
/** The aggregations' sample size: clamped to [1, 1000] (lib/geodatasets/read/aggregations.ts). */
export const sampleParam = clamped;
const path = { type: 'string', maxLength: MAX_PATH_LENGTH } as const;
const time = { type: 'string', maxLength: 100 } as const;

/** The read filters of `get` (geojson and mvt), aggregations, intersect and TileJSON. */
export const readFilterParams = {
  minx: coordinate,
  miny: coordinate,
  maxx: coordinate,
  maxy: coordinate,
  starttime: time,
  endtime: time,
  startProp: path,
  endProp: path,
  format: { type: 'string', maxLength: 100 },
  group_id: { type: 'string', maxLength: 1000 },
  id: count,
  /** `lat,lng,radius`. */
  spatialFilter: { type: 'string', maxLength: 100 },
  noDuplicates: flagParam,
  /** `key+op+type+value` entries, comma-separated (at most 50; an `in` list at most 1000 values). */
  filters: { type: 'string', maxLength: 50_000 },
} as const;

/**
 * OGC CQL2 filtering of `get` (docs/cql2.md): cql2-text by default; cql2-json as text, or as an object
 * in a JSON body. The length cap is the parser's (`CQL2_LIMITS.maxLength`, lib/cql2/limits.ts), written again here:
 * this module holds constants only.
 */
export const cql2Params = {
  filter: { type: ['string', 'object'], maxLength: 20_000, maxProperties: 10 },
  'filter-lang': { type: 'string', enum: ['cql2-text', 'cql2-json'] },
  'filter-crs': { type: 'string', maxLength: 100 },
} as const;

/** A comma-separated list of paths (a string), or a JSON body's array of them. */
const pathList = {
  type: ['string', 'array'],
  maxLength: MAX_FIELDS * (MAX_PATH_LENGTH + 1),
  maxItems: MAX_FIELDS,
  items: path,
} as const;
/** jQuery's repeated form `key[]=a&key[]=b`: every value (the validator is given all of them). */
const repeatedPaths = { type: 'array', maxItems: MAX_FIELDS, items: path } as const;

/** `_source`: the properties to answer (GeoJSON and tiles); comma-separated or repeated. */
export const sourceParams = { _source: pathList, '_source[]': repeatedPaths } as const;

/** The GeoJSON-only options of `get`: paging and per-group statistics. */
export const geojsonParams = {
  /** Clamped to [1, 10000] (docs/geodatasets-read.md). */
  limit: clamped,
  offset: count,
  /** Keyset paging: the features whose id is above this one (a page's `next` link carries it). */
  after: count,
  limited: flagParam,
  stats: pathList,
  'stats[]': repeatedPaths,
} as const;

/** The tile address of `get` with `type=mvt` and the TileJSON version `v` its tile URLs carry. */
export const tileAddressParams = {
  type: { type: 'string', enum: ['geojson', 'mvt'] },
  z: { type: 'integer', minimum: 0, maximum: 24 },
  x: { type: 'integer', minimum: 0, maximum: 2 ** 24 - 1 },
  y: { type: 'integer', minimum: 0, maximum: 2 ** 24 - 1 },
  v: { type: 'integer', minimum: 0, maximum: MAX_INTEGER },
} as const;

/** The read filters as the validator leaves them. */
export type ReadFilterInput = FromSchema<{ type: 'object'; properties: typeof readFilterParams }>;
/** `_source` as the validator leaves it. */
export type SourceInput = FromSchema<{ type: 'object'; properties: typeof sourceParams }>;
/** The GeoJSON options (and `_source`) as the validator leaves them. */
export type GeojsonInput = FromSchema<{
  type: 'object';
  properties: typeof geojsonParams & typeof sourceParams;
}>;
/** A tile request's address as the validator leaves it. */
export type TileAddressInput = FromSchema<{ type: 'object'; properties: typeof tileAddressParams }>;

/** A flag's value: `true`, `'true'` (any case) or `'1'`. */
export function isTrue(v: boolean | string | null | undefined): boolean {
  return v === true || (typeof v === 'string' && (v === '1' || v.toLowerCase() === 'true'));
}
