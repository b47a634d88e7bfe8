import type { APIGatewayProxyEvent } from 'aws-lambda';
import { badRequest } from '#lib/errors.ts';
import { configuredPublicUrl, requestOrigin } from '#lib/publicUrl.ts';

/** The media types of the OGC API answers. */
export const GEOJSON = 'application/geo+json';
export const JSON_TYPE = 'application/json';
export const HTML = 'text/html';
export const OPENAPI_30 = 'application/vnd.oai.openapi+json;version=3.0';

export type Format = 'json' | 'html';

function header(headers: Record<string, string | undefined>, name: string): string | undefined {
  const want = name.toLowerCase();
  for (const [k, v] of Object.entries(headers ?? {})) if (k.toLowerCase() === want) return v;
  return undefined;
}

/** The OGC API's root path, as the front door and API Gateway pass it on. */
const OGC_ROOT = '/api/ogc';

/**
 * The URL of the API's landing page, the base of every OGC link: `PUBLIC_URL` + `/api/ogc` when set (the
 * front door's public host, docs/deploying.md), else the request's own origin plus its path up to
 * `/api/ogc` (the stage prefix when deployed without a custom domain; `/API/ogc` as the caller spelled it).
 * Never a client's `X-Forwarded-*` unless trusted (lib/publicUrl.ts).
 */
export function baseUrl(event: APIGatewayProxyEvent): string {
  const full = event.requestContext?.path ?? event.path ?? '';
  const at = full.search(/\/api\/ogc(\/|$)/i);
  const root = at >= 0 ? full.slice(at, at + OGC_ROOT.length) : OGC_ROOT;
  const configured = configuredPublicUrl();
  if (configured) return `${configured}${root}`;
  return `${requestOrigin(event.headers)}${at >= 0 ? full.slice(0, at) : ''}${root}`;
}

/**
 * JSON or HTML (docs/ogc.md, "Formats"): `f=json|html` decides; otherwise the Accept header, where
 * `text/html` wins only over a lower-or-equal-ranked JSON type (a browser); anything else gets JSON.
 */
export function chooseFormat(f: string | undefined, headers: Record<string, string | undefined>): Format {
  if (f === 'json' || f === 'html') return f;
  if (f !== undefined) throw badRequest(`'f' must be json or html.`);
  const accept = header(headers, 'accept') ?? '';
  let html = -1;
  let json = -1;
  for (const part of accept.split(',')) {
    const [type, ...params] = part.trim().toLowerCase().split(';');
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (!Number.isFinite(q)) continue;
    if (type === 'text/html' || type === 'application/xhtml+xml') html = Math.max(html, q);
    if (type.includes('json')) json = Math.max(json, q);
  }
  return html > 0 && html > json ? 'html' : 'json';
}

/** `url` with the query `params` (undefined values left out). */
export function withQuery(url: string, params: Record<string, string | number | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, String(v));
  const s = q.toString();
  return s ? `${url}?${s}` : url;
}

export interface Link {
  href: string;
  rel: string;
  type?: string;
  title?: string;
}
