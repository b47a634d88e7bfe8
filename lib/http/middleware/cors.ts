import { header } from '#lib/auth/principal.ts';
import { type EndpointMiddleware, type EndpointRequest, proxyResponse } from './types.ts';

/** Origins allowed to send credentials (cookies), from `CORS_ORIGINS` (comma-separated). */
function allowedOrigins(): string[] {
  return (process.env.CORS_ORIGINS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
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

/** Adds the CORS headers to every answer, errors included; headers the endpoint set itself win. */
export function cors(): EndpointMiddleware {
  const corsAfter = (request: EndpointRequest) => {
    const res = proxyResponse(request);
    if (!res) return;
    const requestHeaders = (request.event?.headers ?? {}) as Record<string, string | undefined>;
    res.headers = { ...corsHeaders(requestHeaders), ...(res.headers ?? {}) };
  };
  return { after: corsAfter, onError: corsAfter };
}
