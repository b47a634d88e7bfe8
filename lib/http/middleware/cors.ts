import type { APIGatewayProxyEvent } from 'aws-lambda';
import { header, type Principal } from '#lib/auth/principal.ts';
import { forbidden } from '#lib/errors.ts';
import { setting } from '#lib/settings.ts';
import { withVary } from '../headers.ts';
import { type EndpointMiddleware, type EndpointRequest, proxyResponse } from './types.ts';

/** Origins allowed to send credentials (cookies), from `CORS_ORIGINS` (comma-separated). */
function allowedOrigins(): string[] {
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

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function originOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url).origin;
  } catch {
    return 'null';
  }
}

/**
 * Cross-site request refusal (docs/auth.md): a state-changing request authenticated by the session cookie,
 * or made to a `public` endpoint (`anonymous`: login, logout, signup, first_signup, which create or end a
 * session or an account without one), must come from the service's own origin (the `Host` it was sent to)
 * or one of `CORS_ORIGINS`, judged by `Origin` or, without one, `Referer`; another origin gets 403 before
 * anything runs. Requests with neither header (scripts, curl) and Bearer-token requests pass: a browser
 * cannot attach a token by itself.
 */
export function assertSameOrigin(
  event: APIGatewayProxyEvent,
  principal: Principal,
  { anonymous = false }: { anonymous?: boolean } = {},
): void {
  if (!STATE_CHANGING.has((event.httpMethod ?? '').toUpperCase())) return;
  if (principal.via === 'token' || (principal.via !== 'session' && !anonymous)) return;
  const headers = (event.headers ?? {}) as Record<string, string | undefined>;
  const origin = originOf(header(headers, 'origin') ?? header(headers, 'referer'));
  if (origin === undefined) return;
  const host = header(headers, 'host');
  const own = host !== undefined && origin !== 'null' && new URL(origin).host === host;
  if (own || allowedOrigins().includes(origin)) return;
  throw forbidden(
    `Cross-site request refused: origin ${JSON.stringify(origin).slice(0, 100)} may not change state here (allowed: this service and CORS_ORIGINS).`,
  );
}
