import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { mmgisBuild } from '#lib/web/mmgis/clientDir.ts';
import { serveStatic } from '#lib/web/static.ts';
import { handler as mmgisClient } from './mmgisClient.ts';

/**
 * The built pages, beside the bundles: packaged, this module is dist/functions/web/serve.js and the pages
 * dist/web; in the local build (scripts/build.mjs) its code is in a shared chunk,
 * dist/offline/dist/chunks/*.js, and the pages are dist/offline/dist/web.
 */
const dir =
  ['../../web/', '../web/']
    .map((p) => fileURLToPath(new URL(p, import.meta.url)))
    .find((d) => existsSync(join(d, 'index.html'))) ?? fileURLToPath(new URL('../../web/', import.meta.url));

/**
 * GET `/` (map viewer), `/configure` and `/configure/{proxy+}` (console), `/assets/{file}`: the built web
 * pages from the same origin as the API (docs/web.md). When the operator has handed over an MMGIS build
 * (`MMGIS_CLIENT_DIR`, or deployed its pages in the site bucket, `MMGIS_CLIENT_BUCKET`), `/` is MMGIS's map
 * page instead (docs/mission-site.md).
 */
export async function handler(event: APIGatewayProxyEvent, context: Context): Promise<APIGatewayProxyResult> {
  const path = event.path ?? '/';
  if (path === '/' && (await mmgisBuild())) return mmgisClient(event, context);
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
