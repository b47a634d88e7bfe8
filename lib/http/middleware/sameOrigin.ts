import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { Principal } from '#lib/auth/principal.ts';
import { forbidden } from '#lib/errors.ts';
import { header } from '../headers.ts';
import { allowedOrigins } from './cors.ts';

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
