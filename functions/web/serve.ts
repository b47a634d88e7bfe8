import { fileURLToPath } from 'node:url';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { serveStatic } from '#lib/web/static.ts';

/** The built pages, packaged beside this bundle (dist/functions/web/serve.js → dist/web). */
const dir = fileURLToPath(new URL('../../web/', import.meta.url));

/**
 * GET `/` (map viewer), `/configure` and `/configure/{proxy+}` (console), `/assets/{file}`: the built web
 * pages from the same origin as the API (docs/web.md).
 */
export async function handler(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const path = event.path ?? '/';
  const asset = event.pathParameters?.file;
  const target = asset
    ? { asset }
    : {
        page:
          path === '/configure' || path.startsWith('/configure/')
            ? ('configure' as const)
            : ('index' as const),
      };
  return serveStatic(dir, target, event.headers ?? {});
}
