/** Who asks for a page, as the pages need it. */
export interface PageViewer {
  username: string | null;
  admin: boolean;
}

/** What the variables are made of besides the viewer (docs/mission-site.md, "Page variables"). */
export interface PageContext {
  auth: 'none' | 'local';
  /** The browser-facing WebSocket URL (`websocketUrl()`), '' when there is none. */
  websocketUrl: string;
  /** The port the browser reached (the Host header's, else its scheme's). */
  port: string;
}

/** `WEBSOCKET_ROOT_PATH`: the path of the WebSocket URL without its last `/` (`wss://h/ws/` → `/ws`). */
function websocketRootPath(url: string): string {
  try {
    return new URL(url).pathname.replace(/\/+$/, '');
  } catch {
    return '';
  }
}

/**
 * The variables of `build/index.pug` as MMGIS's server fills them for `/` (docs/mission-site.md, "Page variables"):
 * `permission` `111` for an administrator, `001` for another logged-in user, `000` for nobody; the
 * WebSocket on (`ENABLE_MMGIS_WEBSOCKETS`) when the service has one, at `WEBSOCKET_ROOT_PATH` on the page's
 * own host; the settings MMGIS reads from its environment and we do not have are left empty.
 */
export function mapPageVariables(
  version: string,
  viewer: PageViewer,
  ctx: PageContext,
): Record<string, unknown> {
  return {
    user: viewer.username ?? 'guest',
    permission: viewer.admin ? '111' : viewer.username ? '001' : '000',
    groups: JSON.stringify([]),
    AUTH: ctx.auth,
    NODE_ENV: 'production',
    VERSION: version,
    FORCE_CONFIG_PATH: undefined,
    CLEARANCE_NUMBER: undefined,
    ENABLE_MMGIS_WEBSOCKETS: ctx.websocketUrl ? 'true' : undefined,
    MAIN_MISSION: undefined,
    SKIP_CLIENT_INITIAL_LOGIN: undefined,
    THIRD_PARTY_COOKIES: undefined,
    PORT: ctx.port,
    ROOT_PATH: '',
    WEBSOCKET_ROOT_PATH: websocketRootPath(ctx.websocketUrl),
    HOSTS: JSON.stringify({}),
  };
}

/** The variables of `configure/build/index.pug` (MMGIS's `/configure-beta`). */
export function configurePageVariables(viewer: PageViewer, ctx: PageContext): Record<string, unknown> {
  return {
    user: viewer.username ?? undefined,
    AUTH: ctx.auth,
    NODE_ENV: 'production',
    PORT: ctx.port,
    ENABLE_CONFIG_WEBSOCKETS: ctx.websocketUrl ? 'true' : undefined,
    ENABLE_CONFIG_OVERRIDE: undefined,
    ROOT_PATH: '',
    WEBSOCKET_ROOT_PATH: websocketRootPath(ctx.websocketUrl),
  };
}
