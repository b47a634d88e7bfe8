/**
 * Response shapes for the OpenAPI document: an endpoint may declare its own (`endpoint({ responses })`);
 * every endpoint answers failures with `failure`.
 */
export type ResponseSchemas = Record<number, { description?: string; schema?: object; contentType?: string }>;

/** `{status:'failure', message, ...}`: every 4xx/5xx answer (docs/architecture.md, error shape). */
export const failure = {
  type: 'object',
  required: ['status', 'message'],
  properties: { status: { const: 'failure' }, message: { type: 'string' } },
} as const;

/** A JSON object with `status: 'success'` and whatever the endpoint adds. */
export const success = {
  type: 'object',
  required: ['status'],
  properties: { status: { const: 'success' } },
} as const;

/** `success` plus `properties` (required ones named in `required`). */
export function successWith(properties: Record<string, object>, required: string[] = []) {
  return {
    type: 'object',
    required: ['status', ...required],
    properties: { status: { const: 'success' }, ...properties },
  } as const;
}

/** The failures any endpoint may answer, by status. */
export const failures: Record<number, string> = {
  400: 'Bad input: the message names the field.',
  401: 'Authentication required, or an invalid token.',
  403: 'Not allowed for this caller.',
  404: 'Unknown resource.',
  413: 'Request body too large.',
  500: 'Internal error (the message carries the request id).',
  503: 'The database is unavailable or took too long.',
};

/** A GeoJSON Feature as the read endpoints answer it (geometry and properties passed through). */
const feature = {
  type: 'object',
  required: ['type', 'geometry', 'properties'],
  properties: {
    type: { const: 'Feature' },
    geometry: { type: ['object', 'null'] },
    properties: { type: 'object' },
  },
} as const;

export const featureCollection = {
  type: 'object',
  required: ['type', 'features'],
  properties: { type: { const: 'FeatureCollection' }, features: { type: 'array', items: feature } },
} as const;

export const featureList = { type: 'array', items: feature } as const;

/**
 * The 303 of an answer over the inline limit (lib/http/largeResponse.ts, docs/geodatasets-read.md): the
 * answer is in S3, `Location` (and `url`) a presigned GET valid until `expiresAt`.
 */
export const oversizedAnswer = {
  description:
    'The answer is over MAX_INLINE_RESPONSE_BYTES (default 5 MiB): it was written to S3 and is at the ' +
    'presigned URL in the Location header (also `url`), valid until `expiresAt`; the same answer a ' +
    'smaller one gets inline, byte for byte. Cache-Control: no-store.',
  schema: successWith(
    {
      message: { type: 'string' },
      url: { type: 'string' },
      bytes: { type: 'integer' },
      expiresAt: { type: 'string', format: 'date-time' },
    },
    ['message', 'url', 'bytes', 'expiresAt'],
  ),
};
