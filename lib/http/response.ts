import type { APIGatewayProxyResult } from 'aws-lambda';

export type Headers = Record<string, string>;

/** What an endpoint function may return: a plain object (sent as JSON with 200) or a full response. */
export interface HttpResponse {
  readonly __response: true;
  statusCode: number;
  headers?: Headers;
  cookies?: string[];
  /** A JSON value, a pre-serialized JSON string (`rawJson`), a binary body's base64 (`binary`) or nothing. */
  body?: unknown;
  rawJson?: boolean;
  /** `body` is the base64 of a binary body (`binary`). */
  base64?: boolean;
}

export function respond(
  statusCode: number,
  body?: unknown,
  extra: { headers?: Headers; cookies?: string[] } = {},
): HttpResponse {
  return { __response: true, statusCode, body, ...extra };
}

/** A JSON text built elsewhere (e.g. a FeatureCollection assembled by the database), passed through. */
export function rawJson(statusCode: number, text: string, headers: Headers = {}): HttpResponse {
  return { __response: true, statusCode, body: text, rawJson: true, headers };
}

/**
 * A JSON value sent as `text/plain`: the answer of the MMGIS endpoints whose established server sent its
 * result as text, which its clients `.replace()` before parsing (`utils/getprofile`, `getbands`; docs/utils.md).
 */
export function jsonText(value: unknown, statusCode = 200): HttpResponse {
  return rawJson(statusCode, JSON.stringify(value), {
    'Content-Type': 'text/plain; charset=utf-8',
    'X-Content-Type-Options': 'nosniff',
  });
}

/** Plain text (`text/plain`), e.g. the WKT of `utils/proj42wkt`. */
export function plainText(text: string, statusCode = 200): HttpResponse {
  return rawJson(statusCode, text, {
    'Content-Type': 'text/plain; charset=utf-8',
    'X-Content-Type-Options': 'nosniff',
  });
}

/**
 * A binary body (vector tiles) given as its base64, the form API Gateway's proxy result carries: a tile
 * built in the database arrives as base64 text and is answered without being decoded here.
 */
export function binary(
  statusCode: number,
  base64: string,
  contentType: string,
  headers: Headers = {},
): HttpResponse {
  return {
    __response: true,
    statusCode,
    body: base64,
    base64: true,
    headers: { 'Content-Type': contentType, ...headers },
  };
}

export function isHttpResponse(x: unknown): x is HttpResponse {
  return typeof x === 'object' && x !== null && (x as HttpResponse).__response === true;
}

/** Turns an endpoint's result into the API Gateway (REST, payload v1) result. */
export function toProxyResult(result: unknown): APIGatewayProxyResult {
  const r = isHttpResponse(result) ? result : respond(200, result);
  const headers: Headers = { ...(r.headers ?? {}) };
  const multiValueHeaders = r.cookies?.length ? { 'Set-Cookie': r.cookies } : undefined;
  if (r.body === undefined || r.statusCode === 204 || r.statusCode === 304) {
    return { statusCode: r.statusCode, headers, multiValueHeaders, body: '' };
  }
  if (r.base64) {
    return {
      statusCode: r.statusCode,
      headers,
      multiValueHeaders,
      body: String(r.body),
      isBase64Encoded: true,
    };
  }
  headers['Content-Type'] ??= 'application/json; charset=utf-8';
  const body = r.rawJson ? String(r.body) : JSON.stringify(r.body);
  return { statusCode: r.statusCode, headers, multiValueHeaders, body };
}
