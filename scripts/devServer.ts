import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type EmbeddedDatabase, freePort, startEmbedded } from '../lib/db/embedded.ts';
import { createDb } from '../lib/db/index.ts';
import { migrate } from '../lib/db/migrate.ts';
import { dataApiEnv } from './dataApiStandIn.ts';

export interface ServiceOptions {
  port?: number;
  /** serverless-offline's WebSocket port (default: a free port). */
  websocketPort?: number;
  /** A PostgreSQL/PostGIS server; without it the embedded database under `dataDir` is started. */
  databaseUrl?: string;
  dataDir?: string;
  /** Extra environment for the functions (AUTH, SESSION_TTL_MS, ...). */
  env?: Record<string, string>;
  /** Also print serverless-offline's output (it is always kept: `logLines()`). */
  verbose?: boolean;
  /** Where the S3 stand-in keeps its buckets; without it a temporary directory removed on stop. */
  s3Dir?: string;
  /** The S3 stand-in's port (default: a free one). */
  s3Port?: number;
}

export interface RunningService {
  url: string;
  databaseUrl: string;
  embedded: boolean;
  lambdaPort: number;
  websocketPort: number;
  /** The S3 stand-in (serverless-s3-local) of this service. */
  s3Endpoint: string;
  /** The process group id of serverless-offline (its workers are threads of it). */
  pid(): number | undefined;
  /** serverless-offline's output so far, one entry per line (the last 5,000 lines). */
  logLines(): string[];
  /** Stops serverless-offline and starts it again on the same ports and database (after a rebuild). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The one way serverless-offline is started (`npm start`, the API tests, the benches). Without
 * serverless-offline's reload-handler flag: that flag made a new worker thread (a new "Lambda instance" with a new pool) for
 * every request; without it a worker serves one request at a time and is reused, as on Lambda
 * (docs/connections.md). Hot reload restarts the whole process instead (scripts/start.mjs).
 */
export const OFFLINE_ARGS = [join('node_modules', 'serverless', 'bin', 'serverless.js'), 'offline', 'start'];

/** Prepares the database (embedded or server) and applies migrations; returns its URL. */
export async function prepareDatabase(
  databaseUrl: string | undefined,
  dataDir: string | undefined,
): Promise<{ url: string; embedded: EmbeddedDatabase | null }> {
  const embedded = databaseUrl ? null : await startEmbedded(dataDir);
  const url = databaseUrl ?? embedded!.url;
  const db = createDb({ url, max: 1 });
  try {
    await migrate(db.sql);
  } finally {
    await db.end();
  }
  return { url, embedded };
}

async function waitForHttp(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`serverless offline exited with code ${child.exitCode}`);
    try {
      const res = await fetch(url);
      if (res.status < 500) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the service did not answer at ${url} within ${timeoutMs} ms`);
}

/**
 * Starts the whole API: the database, migrations, then `serverless offline` (its own process group, so
 * stopping it stops its workers too). Used by `npm start` and by the API tests' global setup.
 */
export async function startService(options: ServiceOptions = {}): Promise<RunningService> {
  const { url: databaseUrl, embedded } = await prepareDatabase(options.databaseUrl, options.dataDir);
  const port = options.port ?? (await freePort());
  const lambdaPort = await freePort();
  const websocketPort = options.websocketPort ?? (await freePort());
  const s3Port = options.s3Port ?? (await freePort());
  const s3Dir = options.s3Dir ?? mkdtempSync(join(tmpdir(), 'mmgis-s3-'));
  const s3Endpoint = `http://127.0.0.1:${s3Port}`;
  // DB_DRIVER=data-api without DB_CLUSTER_ARN: the functions reach the database through the Data API stand-in.
  const dataApi = await dataApiEnv({ ...process.env, ...options.env }, databaseUrl);
  const env = {
    ...process.env,
    ...options.env,
    ...dataApi?.env,
    DATABASE_URL: databaseUrl,
    PORT: String(port),
    LAMBDA_PORT: String(lambdaPort),
    WEBSOCKET_PORT: String(websocketPort),
    LAMBDA_ENDPOINT: `http://127.0.0.1:${lambdaPort}`,
    WEBSOCKET_ENDPOINT: `http://127.0.0.1:${websocketPort}`,
    S3_PORT: String(s3Port),
    S3_ENDPOINT: s3Endpoint,
    S3_DIR: s3Dir,
    AWS_ACCESS_KEY_ID: process.env.AWS_ACCESS_KEY_ID ?? 'local',
    AWS_SECRET_ACCESS_KEY: process.env.AWS_SECRET_ACCESS_KEY ?? 'local',
    SLS_TELEMETRY_DISABLED: '1',
    SLS_NOTIFICATIONS_MODE: 'off',
  };
  const lines: string[] = [];
  let partial = '';
  const collect = (d: Buffer, echo: NodeJS.WriteStream) => {
    if (options.verbose) echo.write(d);
    const parts = (partial + d.toString('utf8')).split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts);
    if (lines.length > 5000) lines.splice(0, lines.length - 5000);
  };
  const url = `http://127.0.0.1:${port}`;
  let child: ChildProcess;
  const launch = async () => {
    child = spawn(process.execPath, OFFLINE_ARGS, {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env,
    });
    child.stdout?.on('data', (d: Buffer) => collect(d, process.stdout));
    child.stderr?.on('data', (d: Buffer) => collect(d, process.stderr));
    await waitForHttp(`${url}/api/configure/missions`, child, 120_000);
  };
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null && child.pid) {
      const exited = new Promise((r) => child.once('exit', r));
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        // already gone
      }
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  };
  const stop = async () => {
    await kill();
    await dataApi?.stop();
    await embedded?.stop();
    if (!options.s3Dir) rmSync(s3Dir, { recursive: true, force: true });
  };
  try {
    await launch();
  } catch (e) {
    await stop();
    throw new Error(`${(e as Error).message}\n${lines.slice(-100).join('\n')}`);
  }
  return {
    url,
    databaseUrl,
    embedded: !!embedded,
    lambdaPort,
    websocketPort,
    s3Endpoint,
    pid: () => child.pid,
    logLines: () => (partial ? [...lines, partial] : [...lines]),
    async restart() {
      await kill();
      await launch();
    },
    stop,
  };
}

/** `npm start`: runs until SIGINT/SIGTERM; scripts/start.mjs restarts the service after each rebuild. */
export async function runDevServer(): Promise<RunningService> {
  const port = Number(process.env.PORT) || 8888;
  const usingServer = !!process.env.DATABASE_URL;
  const dataDir = process.env.DATA_DIR ?? '.data/pglite';
  console.log(
    usingServer
      ? 'Database: the PostgreSQL/PostGIS server named by DATABASE_URL'
      : `Database: embedded PGlite + PostGIS in ${dataDir} (set DATABASE_URL to use a server)`,
  );
  const svc = await startService({
    port,
    websocketPort: Number(process.env.WEBSOCKET_PORT) || port - 2,
    databaseUrl: process.env.DATABASE_URL || undefined,
    dataDir,
    verbose: true,
    s3Dir: process.env.S3_DIR ?? '.data/s3',
    s3Port: Number(process.env.S3_PORT) || port - 3,
  });
  console.log(
    `API ready on http://localhost:${port}/api/ (WebSocket on ws://localhost:${svc.websocketPort}, S3 stand-in on ${svc.s3Endpoint})`,
  );
  const shutdown = async () => {
    await svc.stop();
    process.exit(0);
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
  return svc;
}
