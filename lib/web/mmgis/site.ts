import { authMode } from '#lib/auth/permissions.ts';
import type { Principal } from '#lib/auth/principal.ts';
import { notFound, unauthorized } from '#lib/errors.ts';
import { websocketUrl } from '../static.ts';
import type { MmgisBuild } from './build.ts';
import {
  configurePageVariables,
  mapPageVariables,
  type PageContext,
  type PageViewer,
} from './pageVariables.ts';
import { MMGIS_CSP, readStaticFile, staticTarget } from './staticFiles.ts';

/** One answer of the MMGIS front end: text (pages, scripts, styles) or bytes (images, fonts). */
export interface SiteAnswer {
  statusCode: 200 | 304;
  headers: Record<string, string>;
  text?: string;
  bytes?: Buffer;
}

const TEXT = /^(text\/|application\/(json|javascript|xml|geo\+json)|image\/svg)/;

function page(html: string): SiteAnswer {
  return {
    statusCode: 200,
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      // The page depends on who is logged in.
      'Cache-Control': 'no-store',
      'Content-Security-Policy': MMGIS_CSP,
      'X-Content-Type-Options': 'nosniff',
    },
    text: html,
  };
}

/**
 * A request for the MMGIS front end `build` (docs/mission-site.md), gated as MMGIS's server gates it:
 * - `/`: under `AUTH=local` its login page (`views/login.pug`) until logged in, then the map
 *   (`build/index.pug`); under `AUTH=none` the map;
 * - `/configure-beta`: the configure app (`configure/build/index.pug`) for an administrator, else its
 *   administrator login page (`views/adminlogin.pug`);
 * - the static folders: those MMGIS keeps behind its login answer 401 to nobody under `AUTH=local`; 404
 *   for a build read from the site bucket (the front door serves its folders from there).
 */
export async function mmgisSite(
  build: MmgisBuild,
  urlPath: string,
  principal: Principal,
  request: { host?: string; ifNoneMatch?: string },
): Promise<SiteAnswer> {
  const viewer: PageViewer = {
    username: principal.user?.username ?? null,
    admin: principal.user?.role === 'admin',
  };
  const ctx: PageContext = { auth: authMode(), websocketUrl: websocketUrl(), port: portOf(request.host) };
  if (urlPath === '/' || urlPath === '') {
    if (ctx.auth === 'local' && !viewer.username) {
      return page(build.render('views/login.pug', { user: null, CLEARANCE_NUMBER: 'CL##-####' }));
    }
    return page(build.render('build/index.pug', mapPageVariables(build.version, viewer, ctx)));
  }
  if (/^\/configure-beta(\/|$)/.test(urlPath)) {
    if (!viewer.admin) return page(build.render('views/adminlogin.pug', { user: null }));
    return page(build.render('configure/build/index.pug', configurePageVariables(viewer, ctx)));
  }
  const dir = build.dir;
  const target = dir === undefined ? null : staticTarget(dir, urlPath);
  if (!target || dir === undefined) throw notFound(`'${urlPath}' is not a file of the MMGIS front end.`);
  if (target.login && ctx.auth === 'local' && !viewer.username) throw unauthorized();
  const file = await readStaticFile(dir, target.file);
  if (!file) throw notFound(`'${urlPath}' is not a file of the MMGIS front end.`);
  const headers: Record<string, string> = {
    'Content-Type': file.contentType,
    ETag: file.etag,
    'Last-Modified': file.modified.toUTCString(),
    'Cache-Control': target.immutable
      ? 'public, max-age=31536000, immutable'
      : target.login && ctx.auth === 'local'
        ? 'private, no-cache'
        : 'public, no-cache',
    'X-Content-Type-Options': 'nosniff',
  };
  if (request.ifNoneMatch?.split(',').some((t) => t.trim().replace(/^W\//, '') === file.etag)) {
    return { statusCode: 304, headers };
  }
  return TEXT.test(file.contentType)
    ? { statusCode: 200, headers, text: file.body.toString('utf8') }
    : { statusCode: 200, headers, bytes: file.body };
}

/** The port the browser reached: the Host header's, else 443 (MMGIS's client only tests that it is set). */
function portOf(host: string | undefined): string {
  const m = /:(\d+)$/.exec(host ?? '');
  return m ? m[1] : '443';
}
