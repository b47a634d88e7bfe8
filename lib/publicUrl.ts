import type { APIGatewayProxyEvent } from 'aws-lambda';
import { setting } from './settings.ts';

/**
 * Where the service's links point (docs/tiles.md, "TileJSON"; docs/ogc.md): the public origin is
 * configuration, never what a client writes into a header. `PUBLIC_URL` when set (the front door sets it
 * on every function, docs/deploying.md); else the request's own `Host` and scheme. `X-Forwarded-Host` and
 * `X-Forwarded-Proto` count only with `TRUST_FORWARDED_HEADERS=true`, for a proxy in front that sets them
 * itself: a link built from a header the gateway's cache key leaves out would be served to every reader.
 */

type HeaderBag = Record<string, string | undefined> | null | undefined;

/** A header's value whatever the case of its name. */
function header(headers: HeaderBag, name: string): string | undefined {
  for (const [k, v] of Object.entries(headers ?? {})) if (k.toLowerCase() === name) return v;
  return undefined;
}

/** A host name, IPv4 or bracketed IPv6 address, with an optional port: nothing else names a host in a link. */
const HOST =
  /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*\.?|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/** `PUBLIC_URL` without trailing slashes, when set. */
export function configuredPublicUrl(): string | undefined {
  return setting('PUBLIC_URL')?.replace(/\/+$/, '') || undefined;
}

/** Whether a proxy the operator trusts sets `X-Forwarded-Host`/`-Proto` (`TRUST_FORWARDED_HEADERS=true`). */
export function trustForwardedHeaders(): boolean {
  return setting('TRUST_FORWARDED_HEADERS');
}

/** The first value of a forwarded header, only when they are trusted. */
function forwarded(headers: HeaderBag, name: string): string | undefined {
  if (!trustForwardedHeaders()) return undefined;
  return header(headers, name)?.split(',')[0].trim() || undefined;
}

/**
 * The scheme of the request: the trusted `X-Forwarded-Proto`; else `http` under serverless-offline (it
 * sets `IS_OFFLINE` and serves plain HTTP), `https` on API Gateway (which serves nothing else).
 */
export function requestScheme(headers: HeaderBag): 'http' | 'https' {
  const proto = forwarded(headers, 'x-forwarded-proto')?.toLowerCase();
  if (proto === 'http' || proto === 'https') return proto;
  return setting('IS_OFFLINE') ? 'http' : 'https';
}

/** The host the request was sent to: the trusted `X-Forwarded-Host`, else `Host` (`localhost` if neither is a host). */
export function requestHost(headers: HeaderBag): string {
  const host = forwarded(headers, 'x-forwarded-host') ?? header(headers, 'host')?.trim();
  return host && HOST.test(host) ? host : 'localhost';
}

/** `scheme://host` of the request (no path). */
export function requestOrigin(headers: HeaderBag): string {
  return `${requestScheme(headers)}://${requestHost(headers)}`;
}

/**
 * The public base URL of the API for links: `PUBLIC_URL` when set; else the request's origin plus the
 * stage prefix API Gateway adds when there is no custom domain (`requestContext.path` ends with the
 * resource path).
 */
export function publicBaseUrl(event: APIGatewayProxyEvent): string {
  const configured = configuredPublicUrl();
  if (configured) return configured;
  const full = event.requestContext?.path ?? '';
  const prefix =
    full && event.path && full.endsWith(event.path) ? full.slice(0, full.length - event.path.length) : '';
  return `${requestOrigin(event.headers)}${prefix}`;
}
