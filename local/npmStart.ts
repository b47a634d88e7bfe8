/**
 * `npm start`'s service (local/start.mjs): `startService` (local/devServer.ts) with the settings of
 * `npm start`, its screen (docs/connections.md, "npm start"), and its stop on SIGINT/SIGTERM.
 */
import { resolve } from 'node:path';
import { createDb, parseDatabaseUrl } from '#lib/db/index.ts';
import { type Env, setting, settingIfSet } from '#lib/settings.ts';
import { type RunningService, startService } from './devServer.ts';

/** Whether `npm start` shows serverless-offline's own start-up output (its route table): `--routes` or SLS_LOG_LEVEL. */
export function showRoutes(argv = process.argv, env?: Env): boolean {
  return argv.includes('--routes') || settingIfSet('SLS_LOG_LEVEL', env) !== undefined;
}

/** Whether the database at `url` has an administrator account yet (null: it could not be asked). */
async function hasAdministrator(url: string): Promise<boolean | null> {
  const db = createDb({ url, max: 1 });
  try {
    const [row] = await db.sql`select exists (select 1 from users where role = 'admin') as has`;
    return !!row?.has;
  } catch {
    return null;
  } finally {
    await db.end();
  }
}

/** A URL with its password replaced by `***` (a server's URL as the user gave it). */
function withoutPassword(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url;
  }
}

/**
 * `npm start`'s screen (docs/connections.md, "npm start"): at most 15 lines, in this order: the API and its
 * OpenAPI; the map viewer and the configure page; the WebSocket; the database; the first step when no
 * administrator exists.
 */
export function startupScreen(s: {
  base: string;
  databaseUrl: string;
  embedded: boolean;
  dataDir: string;
  hasAdmin: boolean | null;
  seconds: number;
  /** The build's ms (null: nothing had changed) and the database's, from the start. */
  buildMs?: number | null;
  databaseMs?: number;
}): string[] {
  const ws = s.base.replace(/^http/, 'ws');
  const sec = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const where = [
    s.buildMs === undefined ? '' : s.buildMs === null ? 'build up to date' : `build ${sec(s.buildMs)}`,
    s.databaseMs === undefined ? '' : `database ready at ${sec(s.databaseMs)}`,
  ].filter(Boolean);
  const lines = [
    `mmgis-serverless answered in ${s.seconds.toFixed(1)} s${where.length ? ` (${where.join(', ')})` : ''}; Ctrl-C stops it`,
    `  API          ${s.base}/api/   OpenAPI: ${s.base}/api/openapi.json`,
    `  Map viewer   ${s.base}/        Configure: ${s.base}/configure`,
    `  WebSocket    ${ws}/`,
    s.embedded
      ? `  Database     embedded PGlite + PostGIS, data in ${s.dataDir}`
      : '  Database     the PostgreSQL/PostGIS server of DATABASE_URL',
    `               ${s.embedded ? parseDatabaseUrl(s.databaseUrl).url : withoutPassword(s.databaseUrl)}${s.embedded ? "   (this start's password; psql works too)" : ''}`,
  ];
  if (s.hasAdmin === false)
    lines.push(
      '  First step   no administrator yet: create one, then log in at /configure:',
      `               curl -X POST ${s.base}/api/users/first_signup -H 'content-type: application/json' \\`,
      `                 -d '{"username":"admin","password":"at least 8 characters"}'`,
    );
  lines.push('Request logs follow, one JSON line each. Routes: npm start -- --routes');
  return lines;
}

export interface DevServerOptions {
  /** When `npm start` began (Date.now()), for the time to the first answer; default: this call. */
  started?: number;
  /** The ms its build took (null: nothing had changed). */
  buildMs?: number | null;
  /** Called on SIGINT/SIGTERM before the service stops (local/start.mjs: esbuild's watch). */
  onStop?: () => unknown;
  /** The embedded data folder's preparation, started before the build (local/start.mjs). */
  dataFolderReady?: Promise<void>;
}

/** `npm start`: runs until SIGINT/SIGTERM; local/start.mjs restarts the service after each rebuild under `npm run dev`. */
export async function runDevServer(o: DevServerOptions = {}): Promise<RunningService> {
  const started = o.started ?? Date.now();
  const port = setting('PORT');
  const dataDir = resolve(setting('DATA_DIR'));
  const routes = showRoutes();
  const svc = await startService({
    port,
    websocketPort: setting('WEBSOCKET_PORT') ?? port - 2,
    databaseUrl: setting('DATABASE_URL'),
    dataDir,
    dataFolderReady: o.dataFolderReady,
    verbose: true,
    echoStartup: routes,
    s3Dir: setting('S3_DIR'),
    s3Port: setting('S3_PORT') ?? port - 3,
    env: routes && settingIfSet('SLS_LOG_LEVEL') === undefined ? { SLS_LOG_LEVEL: 'notice' } : {},
  });
  const base = `http://localhost:${port}`;
  const screen = startupScreen({
    base,
    databaseUrl: svc.databaseUrl,
    embedded: svc.embedded,
    dataDir,
    hasAdmin: await hasAdministrator(svc.databaseUrl),
    seconds: (Date.now() - started) / 1000,
    buildMs: o.buildMs,
    databaseMs: o.buildMs === undefined ? undefined : (o.buildMs ?? 0) + svc.timings.database,
  });
  process.stdout.write(`${screen.join('\n')}\n`);
  svc.echoFromNow();
  let stopping = false;
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    await o.onStop?.();
    await svc.stop();
    process.exit(0);
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
  return svc;
}
