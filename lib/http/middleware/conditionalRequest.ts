import { header } from '../headers.ts';
import { type EndpointMiddleware, type EndpointRequest, proxyResponse } from './types.ts';

/** `If-None-Match` matching (RFC 9110: weak comparison, `*`, comma-separated lists). */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const want = etag.replace(/^W\//, '');
  return ifNoneMatch
    .split(',')
    .map((t) => t.trim().replace(/^W\//, ''))
    .some((t) => t === '*' || t === want);
}

/**
 * Conditional GET: a 200 carrying an `ETag` that the request's `If-None-Match` already holds becomes a
 * 304 with the same validators and no body. (An endpoint that can tell before reading, like tiles,
 * answers 304 itself with `etagMatches` and skips the work.)
 */
export function conditionalRequest(): EndpointMiddleware {
  const conditionalRequestAfter = (request: EndpointRequest) => {
    const res = proxyResponse(request);
    const etag = res?.headers?.ETag;
    if (res?.statusCode !== 200 || typeof etag !== 'string') return;
    const headers = (request.event.headers ?? {}) as Record<string, string | undefined>;
    if (!etagMatches(header(headers, 'if-none-match'), etag)) return;
    const { 'Content-Type': _type, ...kept } = res.headers ?? {};
    request.response = { statusCode: 304, headers: kept, multiValueHeaders: res.multiValueHeaders, body: '' };
  };
  return { after: conditionalRequestAfter };
}
