/**
 * Response shapes for the OpenAPI document: an endpoint declares its own by status (`endpoint({ responses })`,
 * the shapes of lib/http/openapi/shapes/); every endpoint answers failures with `failure`. `schema` is
 * the JSON body (`contentType` when not `application/json`); `content` gives several media types.
 */
export type ResponseSchemas = Record<
  number,
  { description?: string; schema?: object; contentType?: string; content?: Record<string, object> }
>;

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
  409: 'Conflict: the name is taken.',
  413: 'Request body too large.',
  500: 'Internal error (the message carries the request id).',
  503: 'The database is unavailable or took too long.',
};

/** `{status:'success', message}` and, when given, `body`. */
export function successMessage(body?: object) {
  return body
    ? successWith({ message: { type: 'string' }, body }, ['message', 'body'])
    : successWith({ message: { type: 'string' } }, ['message']);
}

/** An object schema with these properties, all of them required unless listed in `optional`. */
export function object(properties: Record<string, object>, optional: string[] = []) {
  return {
    type: 'object',
    required: Object.keys(properties).filter((k) => !optional.includes(k)),
    properties,
  } as const;
}

export const string = { type: 'string' } as const;
export const integer = { type: 'integer' } as const;
export const number = { type: 'number' } as const;
export const boolean = { type: 'boolean' } as const;
export const nullable = (schema: { type: string }) => ({ ...schema, type: [schema.type, 'null'] });
/** An ISO 8601 date-time text as the service writes it (`toISOString()`). */
export const dateTime = { type: 'string', format: 'date-time' } as const;
export const arrayOf = (items: object) => ({ type: 'array', items }) as const;
