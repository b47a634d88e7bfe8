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
  415: 'Unsupported Content-Type: send JSON or a form.',
  500: 'Internal error (the message carries the request id).',
  503: 'The database is unavailable or took too long.',
};

/** `{status:'success', message}` and, when given, `body`. */
export function successMessage(body?: object) {
  return body
    ? successWith({ message: { type: 'string' }, body }, ['message', 'body'])
    : successWith({ message: { type: 'string' } }, ['message']);
}

/** `responses` of an endpoint whose success is a 200 with this JSON body: `endpoint({ responses: ok(x) })`. */
export const ok = (schema: object) => ({ 200: { schema } });

/** A raw body's OpenAPI declaration: a schema per media type (the handler parses the text itself). */
export interface RawBodyDoc {
  description: string;
  content: Record<string, object>;
}
