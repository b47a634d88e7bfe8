import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type Env, setting } from '#lib/settings.ts';

/** A response of the page server: text bodies only (the built pages and assets are all text). */
export interface StaticResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.html': 'text/html; charset=utf-8',
};

/** Hashed asset names as scripts/buildWeb.mjs writes them: `<name>-<hash>.<ext>`, nothing else. */
const ASSET = /^[A-Za-z0-9_.-]+-[A-Za-z0-9_]{8,}\.(js|mjs|css|svg)$/;

/**
 * The browser-facing origin of the live-update WebSocket: `WEBSOCKET_URL`, else derived from the
 * management endpoint `WEBSOCKET_ENDPOINT` (http → ws, https → wss). Empty: live reload is off.
 */
export function websocketUrl(env?: Env): string {
  const url = setting('WEBSOCKET_URL', env);
  if (url) return url;
  const ep = setting('WEBSOCKET_ENDPOINT', env) ?? '';
  return /^https?:\/\//.test(ep) ? ep.replace(/^http/, 'ws') : '';
}

function origin(url: string): string {
  try {
    return new URL(url).origin.replace(/^http/, url.startsWith('ws') ? 'ws' : 'http');
  } catch {
    return '';
  }
}

/**
 * The security headers of every page and asset (docs/web.md): scripts only from this origin, MapLibre's
 * worker from this origin or a blob, connections to this origin, the WebSocket, the upload bucket and
 * tile servers of `tile` layers (https), no framing.
 */
export function securityHeaders(env?: Env): Record<string, string> {
  const ws = websocketUrl(env);
  const wsOrigin = ws ? new URL(ws).origin.replace(/^http/, 'ws') : '';
  const s3Endpoint = setting('S3_ENDPOINT', env);
  const s3 = s3Endpoint ? origin(s3Endpoint) : 'https://*.amazonaws.com';
  const connect = ["'self'", wsOrigin, s3, 'https:'].filter(Boolean).join(' ');
  const csp = [
    "default-src 'self'",
    "script-src 'self'",
    "worker-src 'self' blob:",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob: https:",
    `connect-src ${connect}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
  return {
    'Content-Security-Policy': csp,
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'same-origin',
  };
}

const cache = new Map<string, string | null>();

async function load(dir: string, file: string): Promise<string | null> {
  const key = join(dir, file);
  if (!cache.has(key)) cache.set(key, await readFile(key, 'utf8').catch(() => null));
  return cache.get(key) ?? null;
}

function notFoundPage(env?: Env): StaticResponse {
  return {
    statusCode: 404,
    headers: { ...securityHeaders(env), 'Content-Type': 'text/plain; charset=utf-8' },
    body: 'Not found',
  };
}

/**
 * Serves one built page or asset from `dir` (dist/web). `page` is `index` or `configure`; the HTML gets
 * `no-cache` and a strong ETag (304 on `If-None-Match`) and names the WebSocket in a meta tag; an asset
 * (`asset` set) is immutable for a year.
 *
 * @example await serveStatic('/var/task/dist/web', { page: 'index' }, {})
 */
export async function serveStatic(
  dir: string,
  target: { page?: 'index' | 'configure'; asset?: string },
  requestHeaders: Record<string, string | undefined>,
  env?: Env,
): Promise<StaticResponse> {
  if (target.asset !== undefined) {
    if (!ASSET.test(target.asset)) return notFoundPage(env);
    const body = await load(join(dir, 'assets'), target.asset);
    if (body === null) return notFoundPage(env);
    const ext = target.asset.slice(target.asset.lastIndexOf('.'));
    return {
      statusCode: 200,
      headers: {
        ...securityHeaders(env),
        'Content-Type': TYPES[ext] ?? 'application/octet-stream',
        'Cache-Control': 'public, max-age=31536000, immutable',
      },
      body,
    };
  }
  const template = await load(dir, `${target.page ?? 'index'}.html`);
  if (template === null) return notFoundPage(env);
  const meta = `<meta name="mmgis-websocket" content="${websocketUrl(env).replace(/[<>"&]/g, '')}">`;
  const body = template.replace('<meta charset="utf-8">', `<meta charset="utf-8">\n${meta}`);
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  const headers = {
    ...securityHeaders(env),
    'Content-Type': TYPES['.html'],
    'Cache-Control': 'no-cache',
    ETag: etag,
  };
  const inm = Object.entries(requestHeaders).find(([k]) => k.toLowerCase() === 'if-none-match')?.[1];
  if (inm?.split(',').some((t) => t.trim().replace(/^W\//, '') === etag)) {
    return { statusCode: 304, headers, body: '' };
  }
  return { statusCode: 200, headers, body };
}
