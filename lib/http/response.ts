import type { APIGatewayProxyResult } from 'aws-lambda';

export type Headers = Record<string, string>;

/** What an endpoint function may return: a plain object (sent as JSON with 200) or a full response. */
export interface HttpResponse {
  readonly __response: true;
  statusCode: number;
  headers?: Headers;
  cookies?: string[];
  /** A JSON value, a pre-serialized JSON string (`rawJson`), a Buffer (binary) or nothing. */
  body?: unknown;
  rawJson?: boolean;
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

/** A binary body (vector tiles), base64-encoded for API Gateway. */
export function binary(
  statusCode: number,
  buf: Buffer,
  contentType: string,
  headers: Headers = {},
): HttpResponse {
  return { __response: true, statusCode, body: buf, headers: { 'Content-Type': contentType, ...headers } };
}

export function isHttpResponse(x: unknown): x is HttpResponse {
  return typeof x === 'object' && x !== null && (x as HttpResponse).__response === true;
}

/** Turns an endpoint's result into the API Gateway (REST, payload v1) result. */
export function toProxyResult(result: unknown): APIGatewayProxyResult {
  const r = isHttpResponse(result) ? result : respond(200, result);
  const headers: Headers = { ...(r.headers ?? {}) };
  const multiValueHeaders = r.cookies?.length ? { 'Set-Cookie': r.cookies } : undefined;
  if (Buffer.isBuffer(r.body)) {
    return {
      statusCode: r.statusCode,
      headers,
      multiValueHeaders,
      body: r.body.toString('base64'),
      isBase64Encoded: true,
    };
  }
  if (r.body === undefined || r.statusCode === 204 || r.statusCode === 304) {
    return { statusCode: r.statusCode, headers, multiValueHeaders, body: '' };
  }
  headers['Content-Type'] ??= 'application/json; charset=utf-8';
  const body = r.rawJson ? String(r.body) : JSON.stringify(r.body);
  return { statusCode: r.statusCode, headers, multiValueHeaders, body };
}
