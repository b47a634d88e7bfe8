import type { APIGatewayProxyEvent } from 'aws-lambda';
import { header } from '#lib/auth/principal.ts';
import { envText } from '#lib/settings.ts';

/**
 * The public base URL of the API for links: `PUBLIC_URL` when set; else the request's scheme and host
 * plus the stage prefix API Gateway adds when there is no custom domain (`requestContext.path` ends with
 * the resource path).
 */
export function publicBaseUrl(event: APIGatewayProxyEvent): string {
  const configured = envText('PUBLIC_URL');
  if (configured) return configured.replace(/\/+$/, '');
  const headers = (event.headers ?? {}) as Record<string, string | undefined>;
  const host = header(headers, 'x-forwarded-host') ?? header(headers, 'host') ?? 'localhost';
  const proto =
    header(headers, 'x-forwarded-proto')?.split(',')[0].trim() ??
    (host.startsWith('127.0.0.1') || host.startsWith('localhost') ? 'http' : 'https');
  const full = event.requestContext?.path ?? '';
  const prefix =
    full && event.path && full.endsWith(event.path) ? full.slice(0, full.length - event.path.length) : '';
  return `${proto}://${host}${prefix}`;
}

/** `headers` with `name` added to its `Vary` (whatever the case of that header's name). */
export function withVary(
  headers: Record<string, boolean | number | string>,
  name: string,
): Record<string, boolean | number | string> {
  const out = { ...headers };
  const values: string[] = [];
  for (const k of Object.keys(out)) {
    if (k.toLowerCase() !== 'vary') continue;
    values.push(...String(out[k]).split(','));
    delete out[k];
  }
  const all = values.map((v) => v.trim()).filter(Boolean);
  if (!all.some((v) => v.toLowerCase() === name.toLowerCase())) all.push(name);
  out.Vary = all.join(', ');
  return out;
}
