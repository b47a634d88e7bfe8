import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type EmbeddedDatabase, freePort, startEmbedded } from '../lib/db/embedded/start.ts';
import { createDb, parseDatabaseUrl } from '../lib/db/index.ts';
import { migrate } from '../lib/db/migrate.ts';
import { INCOMING_PREFIX, RESPONSES_PREFIX } from '../lib/uploads/s3.ts';
import { dataApiEnv } from './dataApiStandIn.ts';

export interface ServiceOptions {
  port?: number;
  /**
   * serverless-offline's own WebSocket port (default: a free port). Clients use `port`: the WebSocket
   * answers there too (serverless/plugins/offline-websocket-on-http-port.cjs).
   */
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
  /** serverless-offline's own WebSocket port (its `@connections` management API); clients use `url`'s port. */
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

/** serverless-offline does not exit when one of its ports is taken: it logs this line and keeps running. */
const PORT_TAKEN = /EADDRINUSE[^\n]*?:(\d+)/;

class PortTakenError extends Error {
  constructor(readonly port: number) {
    super(
      `port ${port} is already in use: stop what holds it, or choose other ports (PORT; docs/connections.md)`,
    );
  }
}

async function waitForHttp(
  url: string,
  child: ChildProcess,
  timeoutMs: number,
  takenPort: () => number | null,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  // Its output is complete once its pipes close, which may come after the exit.
  const outputDone = new Promise((r) => child.once('close', r));
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      await Promise.race([outputDone, new Promise((r) => setTimeout(r, 2000))]);
      const taken = takenPort();
      if (taken !== null) throw new PortTakenError(taken);
      throw new Error(`serverless offline exited with code ${child.exitCode}`);
    }
    const taken = takenPort();
    if (taken !== null) throw new PortTakenError(taken);
    // The answer is read to its end and the timer cleared: an unread body, or an abort firing later, would
    // leave this kept-alive connection to be reset under whoever reuses it next.
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), 5000);
    try {
      const res = await fetch(url, { signal: abort.signal });
      await res.arrayBuffer();
      if (res.status < 500) return;
    } catch {
      // not listening yet
    } finally {
      clearTimeout(timer);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the service did not answer at ${url} within ${timeoutMs} ms`);
}

interface ServicePorts {
  /** The public port: serverless-offline's HTTP port, where WebSocket handshakes are answered too. */
  port: number;
  lambdaPort: number;
  websocketPort: number;
  s3Port: number;
}

/** The ports of `options`, and free ones for the rest. */
async function choosePorts(options: ServiceOptions): Promise<ServicePorts> {
  return {
    port: options.port ?? (await freePort()),
    lambdaPort: await freePort(),
    websocketPort: options.websocketPort ?? (await freePort()),
    s3Port: options.s3Port ?? (await freePort()),
  };
}

function portEnv(p: ServicePorts): Record<string, string> {
  return {
    PORT: String(p.port),
    LAMBDA_PORT: String(p.lambdaPort),
    WEBSOCKET_PORT: String(p.websocketPort),
    LAMBDA_ENDPOINT: `http://127.0.0.1:${p.lambdaPort}`,
    WEBSOCKET_ENDPOINT: `http://127.0.0.1:${p.websocketPort}`,
    S3_PORT: String(p.s3Port),
    S3_ENDPOINT: `http://127.0.0.1:${p.s3Port}`,
  };
}

/**
 * The S3 stand-in (s3rver's file store) removes a key's folder when a delete leaves it empty, and a PUT
 * into that folder at the same moment, past its `mkdirp`, fails with a 500 (ENOENT): two uploads, or an
 * ingest's delete beside another upload. A file that is no object (s3rver lists only its `._S3rver_object`
 * files) keeps the folders of our two prefixes (lib/uploads/s3.ts) from emptying.
 */
function keepPrefixFolders(s3Dir: string, bucket: string): void {
  for (const prefix of [INCOMING_PREFIX, RESPONSES_PREFIX]) {
    const folder = join(s3Dir, bucket, prefix);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, '.keep'), '');
  }
}

/**
 * Starts the whole API: the database, migrations, then `serverless offline` (its own process group, so
 * stopping it stops its workers too). Used by `npm start` and by the API tests' global setup.
 */
export async function startService(options: ServiceOptions = {}): Promise<RunningService> {
  const { url: databaseUrl, embedded } = await prepareDatabase(options.databaseUrl, options.dataDir);
  const inProcess = (options.env?.OFFLINE_IN_PROCESS ?? process.env.OFFLINE_IN_PROCESS) !== 'false';
  let ports = await choosePorts(options);
  const s3Dir = options.s3Dir ?? mkdtempSync(join(tmpdir(), 'mmgis-s3-'));
  keepPrefixFolders(s3Dir, options.env?.UPLOAD_BUCKET ?? process.env.UPLOAD_BUCKET ?? 'mmgis-dev-uploads');
  // DB_DRIVER=data-api without DB_CLUSTER_ARN: the functions reach the database through the Data API stand-in.
  const dataApi = await dataApiEnv({ ...process.env, ...options.env }, databaseUrl);
  const env = {
    ...process.env,
    ...options.env,
    ...dataApi?.env,
    DATABASE_URL: databaseUrl,
    // serverless-offline's two lines per request cost its single main thread about a quarter of its
    // throughput (docs/connections.md); SLS_LOG_LEVEL=notice brings them back.
    SLS_LOG_LEVEL: options.env?.SLS_LOG_LEVEL ?? process.env.SLS_LOG_LEVEL ?? 'warning',
    S3_DIR: s3Dir,
    // Every function runs in serverless-offline's process and shares one pool per settings
    // (lib/db/index.ts getDb; docs/connections.md#one-process): sized for a map's tile burst.
    DB_POOL_MAX: options.env?.DB_POOL_MAX ?? process.env.DB_POOL_MAX ?? (inProcess ? '10' : '2'),
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
  let child: ChildProcess;
  /** One of this launch's ports that serverless-offline reported taken (a stopped child's lines may trail). */
  const takenPort = () => {
    const mine = Object.values(ports);
    for (const l of lines) {
      const port = Number(PORT_TAKEN.exec(l)?.[1]);
      if (mine.includes(port)) return port;
    }
    return null;
  };
  const launch = async () => {
    child = spawn(process.execPath, OFFLINE_ARGS, {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...env,
        ...portEnv(ports),
        // The viewer's live reload (docs/web.md) on the public port, where the page is (docs/live-updates.md).
        WEBSOCKET_URL: (env as NodeJS.ProcessEnv).WEBSOCKET_URL || `ws://127.0.0.1:${ports.port}/`,
      },
    });
    child.stdout?.on('data', (d: Buffer) => collect(d, process.stdout));
    child.stderr?.on('data', (d: Buffer) => collect(d, process.stderr));
    const launched = child;
    launched.once('close', (code, signal) => {
      // Before it first served, startService itself reports the failure (a taken port, a crash).
      if (stopped.has(launched) || !serving) return;
      // An exit nobody asked for: say so, with what it printed last, and start it again on the same ports.
      process.stderr.write(
        `serverless-offline exited unexpectedly (code ${code}, signal ${signal}); its last lines:\n${lines.slice(-80).join('\n')}\n`,
      );
      supervise();
    });
    await waitForHttp(`http://127.0.0.1:${ports.port}/api/configure/missions`, child, 120_000, takenPort);
  };
  /**
   * A port chosen free can be taken before serverless-offline listens on it (by another process, or as
   * the local end of an outgoing connection): choose again. A port the caller named fails at once.
   */
  const launchOnFreePorts = async () => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await launch();
      } catch (e) {
        if (!(e instanceof PortTakenError)) throw e;
        await kill();
        const named = [options.port, options.websocketPort, options.s3Port].includes(e.port);
        if (named || attempt === 3) throw e;
        lines.length = 0;
        partial = '';
        ports = await choosePorts(options);
      }
    }
  };
  /** Restarts of serverless-offline after an unexpected exit, at most 5 a minute. */
  const restarts: number[] = [];
  const supervise = () => {
    const now = Date.now();
    while (restarts.length && now - restarts[0] > 60_000) restarts.shift();
    if (restarts.length >= 5) {
      process.stderr.write('serverless-offline exited 5 times within a minute: not restarting it again\n');
      return;
    }
    restarts.push(now);
    launch().then(
      () => process.stderr.write('serverless-offline restarted\n'),
      (e) => process.stderr.write(`serverless-offline did not restart: ${(e as Error).message}\n`),
    );
  };
  /** Children this function stopped (their exit is expected). */
  const stopped = new WeakSet<ChildProcess>();
  const kill = async () => {
    if (!child) return;
    stopped.add(child);
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
  /** Set once serverless-offline first answered: from then on an exit nobody asked for is restarted. */
  let serving = false;
  try {
    await launchOnFreePorts();
    serving = true;
  } catch (e) {
    await stop();
    throw new Error(`${(e as Error).message}\n${lines.slice(-100).join('\n')}`);
  }
  return {
    url: `http://127.0.0.1:${ports.port}`,
    databaseUrl,
    embedded: !!embedded,
    lambdaPort: ports.lambdaPort,
    websocketPort: ports.websocketPort,
    s3Endpoint: `http://127.0.0.1:${ports.s3Port}`,
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
    `API ready on http://localhost:${port}/api/ (WebSocket on ws://localhost:${port}/, S3 stand-in on ${svc.s3Endpoint})`,
  );
  if (svc.embedded)
    console.log(
      `Embedded database (this start's password; psql works too): ${parseDatabaseUrl(svc.databaseUrl).url}`,
    );
  const shutdown = async () => {
    await svc.stop();
    process.exit(0);
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
  return svc;
}
