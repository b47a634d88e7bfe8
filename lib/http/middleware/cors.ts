import { setting } from '#lib/settings.ts';
import { header, withVary } from '../headers.ts';
import { type EndpointMiddleware, type EndpointRequest, proxyResponse } from './types.ts';

/** Origins allowed to send credentials (cookies), from `CORS_ORIGINS` (comma-separated). */
export function allowedOrigins(): string[] {
  return setting('CORS_ORIGINS');
}

/**
 * `*` for everyone by default; a request from an allowed origin gets that origin echoed back with
 * `Access-Control-Allow-Credentials`, so a browser app on that origin can use its session cookie.
 * (Preflight `OPTIONS` is answered by API Gateway: every route is declared with `cors: true`.)
 */
export function corsHeaders(headers: Record<string, string | undefined>): Record<string, string> {
  const origin = header(headers, 'origin');
  const base = { 'Access-Control-Expose-Headers': 'ETag, Location' };
  if (origin && allowedOrigins().includes(origin)) {
    return {
      ...base,
      'Access-Control-Allow-Origin': origin,
      'Access-Control-Allow-Credentials': 'true',
      Vary: 'Origin',
    };
  }
  return { ...base, 'Access-Control-Allow-Origin': '*' };
}

/**
 * Adds the CORS headers to every answer, errors included; headers the endpoint set itself win, except
 * `Vary`, which keeps the endpoint's values and adds `Origin`.
 */
export function cors(): EndpointMiddleware {
  const corsAfter = (request: EndpointRequest) => {
    const res = proxyResponse(request);
    if (!res) return;
    const requestHeaders = (request.event?.headers ?? {}) as Record<string, string | undefined>;
    const { Vary: vary, ...cors } = corsHeaders(requestHeaders);
    res.headers = { ...cors, ...(res.headers ?? {}) };
    if (vary) res.headers = withVary(res.headers, vary);
  };
  return { after: corsAfter, onError: corsAfter };
}
