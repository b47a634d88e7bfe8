import { failure, successMessage, successWith } from '../describe.ts';
import { arrayOf, dateTime, integer, nullable, number, object, string } from '../json.ts';

/** Response shapes of /api/geodatasets (docs/contract.md#4-geodatasets-api, docs/geodatasets-read.md). */

const geometry = { type: ['object', 'null'], required: ['type'], properties: { type: string } } as const;

export const feature = {
  type: 'object',
  required: ['type', 'geometry', 'properties'],
  properties: { type: { const: 'Feature' }, geometry, properties: { type: ['object', 'null'] } },
} as const;

/** A GeoJSON FeatureCollection: the bare answer of `GET /get` (geojson), `body` of intersect. */
export const featureCollection = object({ type: { const: 'FeatureCollection' }, features: arrayOf(feature) });

/**
 * The 303 of an answer over the inline limit (lib/answers/largeResponse.ts, docs/geodatasets-read.md): the
 * answer is in S3, `Location` (and `url`) a presigned GET valid until `expiresAt`.
 */
export const largeAnswer = {
  description:
    'The answer is over MAX_INLINE_RESPONSE_BYTES (default 5 MiB): it was written to S3 and is at the ' +
    'presigned URL in the Location header (also `url`), valid until `expiresAt`; the same answer a ' +
    'smaller one gets inline, byte for byte. Cache-Control: no-store.',
  schema: successWith({ message: string, url: string, bytes: integer, expiresAt: dateTime }, [
    'message',
    'url',
    'bytes',
    'expiresAt',
  ]),
};

export const intersectAnswer = successWith({ body: featureCollection }, ['body']);
export const searchAnswer = successWith({ body: arrayOf(feature) }, ['body']);

/** `responses` of a read answered by `streamedJson`: the 200 inline, or the 303 of an oversized answer. */
export const streamedAnswer = (description: string, schema: object) => ({
  200: { description, schema },
  303: largeAnswer,
});

const fieldStats = object(
  {
    type: { const: 'number' },
    min: number,
    max: number,
    sum: number,
    sumsq: number,
    count: integer,
    nullCount: integer,
    avg: nullable(number),
    stddev: nullable(number),
  },
  ['nullCount', 'avg', 'stddev'],
);
const fieldStatsOf = { type: 'object', additionalProperties: fieldStats } as const;

export const schemaAnswer = successWith(
  {
    schema: {
      type: 'object',
      additionalProperties: object({ type: string, layers: arrayOf(string) }),
    },
    field_stats: { type: 'object', additionalProperties: fieldStatsOf },
  },
  ['schema', 'field_stats'],
);

export const entry = object(
  {
    name: string,
    updated: string,
    filename: nullable(string),
    properties_type: { enum: ['json', 'jsonb'] },
    num_features: integer,
    start_prop: nullable(string),
    end_prop: nullable(string),
    group_id_prop: nullable(string),
    feature_id_prop: nullable(string),
    start_time_field: nullable(string),
    end_time_field: nullable(string),
    group_id_field: nullable(string),
    feature_id_field: nullable(string),
    field_stats: fieldStatsOf,
    occurrences: {
      type: 'object',
      additionalProperties: arrayOf(object({ name: string, uuid: nullable(string), path: string })),
    },
  },
  ['field_stats'],
);
export const entriesAnswer = successWith({ body: object({ entries: arrayOf(entry) }) }, ['body']);

const histogram = arrayOf(object({ min: number, max: number, count: integer }));
const aggregation = {
  oneOf: [
    object({ type: { const: 'number' }, min: number, max: number, histogram }),
    object({ type: { const: 'string' }, values: { type: 'object', additionalProperties: integer } }),
    object({ type: { const: 'boolean' }, values: object({ true: integer, false: integer }) }),
  ],
} as const;
const aggregationsBody = object({
  layer: string,
  sampled: integer,
  total: integer,
  aggregations: { type: 'object', additionalProperties: aggregation },
});
/** The MMGIS map client's shape: per field, its majority type and value counts. */
const mmgisAggregations = {
  type: 'object',
  additionalProperties: object({
    type: { enum: ['number', 'string', 'boolean'] },
    aggs: { type: 'object', additionalProperties: integer },
  }),
} as const;
export const aggregationsAnswer = successWith({ aggregations: mmgisAggregations, body: aggregationsBody }, [
  'aggregations',
  'body',
]);
export const bulkAggregationsAnswer = successWith(
  { aggregations: mmgisAggregations, body: { type: 'object', additionalProperties: aggregationsBody } },
  ['aggregations', 'body'],
);

export const tileJsonAnswer = successWith(
  {
    tilejson: { const: '3.0.0' },
    name: string,
    tiles: arrayOf(string),
    minzoom: integer,
    maxzoom: integer,
    bounds: arrayOf(number),
    center: arrayOf(number),
    full_detail_zoom: integer,
    vector_layers: arrayOf(
      object({
        id: string,
        fields: { type: 'object', additionalProperties: { enum: ['Number', 'String', 'Boolean'] } },
      }),
    ),
  },
  ['tilejson', 'tiles', 'vector_layers', 'bounds'],
);

/** A GeoJSON FeatureCollection or a single Feature: the data of a write. */
const writtenGeojson = { oneOf: [featureCollection, feature] } as const;

const propName = (what: string) => ({
  type: ['string', 'null'],
  description: `The property holding each feature's ${what} (else the GeoJSON's own member of that name).`,
});

/** The body of `POST /api/geodatasets/recreate` (docs/geodatasets-write.md). */
export const recreateBody = {
  description:
    'A JSON object: the geodataset `name` and its `geojson` (an object, or that object as a JSON string).',
  content: {
    'application/json': {
      type: 'object',
      required: ['name', 'geojson'],
      properties: {
        name: { type: 'string', description: 'The geodataset (created when missing).' },
        geojson: { oneOf: [writtenGeojson, { type: 'string', description: 'The GeoJSON as JSON text.' }] },
        action: { type: 'string', enum: ['recreate', 'append'], default: 'recreate' },
        startProp: propName('start time'),
        endProp: propName('end time'),
        groupIdProp: propName('group id'),
        featureIdProp: propName('feature id'),
        filename: { type: ['string', 'null'], description: 'The file the data came from, kept with it.' },
      },
    },
  },
};

/** The body of `POST /api/geodatasets/append/{name}` and `recreate/{name}`: the GeoJSON itself (docs/geodatasets-write.md). */
export const geojsonBody = {
  description: 'The features: a GeoJSON FeatureCollection or a single Feature.',
  content: { 'application/json': writtenGeojson, 'application/geo+json': writtenGeojson },
};

/** `{name, num_features, added?}` of a write (docs/contract.md#5-edge-cases-decided). */
export const writeAnswer = successWith(
  { body: object({ name: string, num_features: integer, added: integer }, ['added']) },
  ['body'],
);

const jobState = { enum: ['awaiting_upload', 'queued', 'running', 'succeeded', 'failed'] } as const;
/** `{job: {id, state}}` of a started job (202, or 200 when there is nothing to do). */
export const jobStarted = successWith({ body: object({ job: object({ id: string, state: jobState }) }) }, [
  'body',
]);
/** 202 of a whole-layer read handed to an export job (docs/geodatasets-read.md, "Export jobs"). */
export const exportStarted = {
  description:
    'The layer has more features than EXPORT_ABOVE_FEATURES: an export job writes the whole GeoJSON to S3. ' +
    'Location (also `url`) is the job (GET /api/geodatasets/jobs/:id); once it has succeeded its result ' +
    'holds `url`, a presigned GET of the GeoJSON, and this same request answers 303 to it. ' +
    'Retry-After: 5. Cache-Control: no-store.',
  schema: successWith(
    { message: string, url: string, body: object({ job: object({ id: string, state: jobState }) }) },
    ['message', 'url', 'body'],
  ),
};

/** 410 of an export job whose layer was removed (docs/geodatasets-read.md, "Export jobs"). */
export const layerGone = {
  description: 'The export job read a layer that has since been removed: the job and its GeoJSON are gone.',
  schema: failure,
};

/**
 * 429 (the caller's own exports fill its cap) or 503 (the layer's or the service's do) of a whole-layer
 * read that would start one more export (docs/geodatasets-read.md, "Export jobs", "Caps").
 */
export const exportRefused = {
  description:
    "A new export would pass a cap on running exports: 429 for the caller's own cap (EXPORT_MAX_PER_CALLER), " +
    "503 for the layer's (EXPORT_MAX_PER_LAYER) or the service's (EXPORT_MAX_RUNNING). " +
    'Retry-After: 30. Cache-Control: no-store. Nothing is started.',
  schema: failure,
};

export const jobAnswer = successWith(
  {
    body: object({
      job: object(
        {
          id: string,
          kind: string,
          name: nullable(string),
          state: jobState,
          error: string,
          result: {},
          processed: integer,
          total: integer,
          createdAt: dateTime,
          finishedAt: dateTime,
        },
        ['error', 'result', 'processed', 'total', 'finishedAt'],
      ),
    }),
  },
  ['body'],
);

export const uploadAnswer = successWith(
  {
    body: object({
      job: object({ id: string, state: jobState }),
      upload: object({
        url: string,
        method: { const: 'PUT' },
        headers: { type: 'object', additionalProperties: string },
        expiresAt: dateTime,
        maxBytes: integer,
      }),
    }),
  },
  ['body'],
);

export const removed = successMessage();
