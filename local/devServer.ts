// One piece, though over 300 lines: `startService` is one closure over one serverless-offline child process
// (its ports, its output lines, whether it serves, the restarts of a supervisor), and its launch, restart,
// supervision and stop each read and change that state; the helpers around it (ports, waiting for the first
// answer, the S3 stand-in's folders) are the steps of that one start. `npm start`'s own loop and screen are
// in local/npmStart.ts.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createDb } from '#lib/db/index.ts';
import { migrate } from '#lib/db/migrate.ts';
import { forgetConnectionsOf } from '#lib/events/connections.ts';
import { type Env, setting, settingIfSet } from '#lib/settings.ts';
import { INCOMING_PREFIX, RESPONSES_PREFIX } from '#lib/uploads/s3.ts';
import { dataApiEnv } from './dataApi/standIn.ts';
import {
  type EmbeddedDatabase,
  embeddedUrl,
  freePort,
  newPassword,
  startEmbedded,
} from './embedded/start.ts';

export interface ServiceOptions {
  port?: number;
  /**
   * serverless-offline's own WebSocket port (default: a free port). Clients use `port`: the WebSocket
   * answers there too (local/offline/websocket-on-http-port.cjs).
   */
  websocketPort?: number;
  /** A PostgreSQL/PostGIS server; without it the embedded database under `dataDir` is started. */
  databaseUrl?: string;
  dataDir?: string;
  /** `prepareDataFolder(dataDir)` already under way (local/start.mjs starts it before its build). */
  dataFolderReady?: Promise<void>;
  /** Extra environment for the functions (AUTH, SESSION_TTL_MS, ...). */
  env?: Record<string, string>;
  /** Also print serverless-offline's output (it is always kept: `logLines()`). */
  verbose?: boolean;
  /** Where the S3 stand-in keeps its buckets; without it a temporary directory removed on stop. */
  s3Dir?: string;
  /** The S3 stand-in's port (default: a free one). */
  s3Port?: number;
  /**
   * Whether `verbose` echoes serverless-offline's output from its start (its configuration warnings and
   * route table); otherwise only from `echoFromNow()` (`npm start`, after its screen: docs/connections.md).
   */
  echoStartup?: boolean;
}

/** Where a start's time went, in ms from `startService`'s call. */
export interface StartTimings {
  /** The database open and migrated (the embedded one opens beside serverless-offline's start). */
  database: number;
  /** serverless-offline's first answer to `GET /api/configure/missions`. */
  firstAnswer: number;
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
  /** Where this start's time went. */
  timings: StartTimings;
  /** With `verbose` and `echoStartup: false`: echo serverless-offline's output from now on (after the screen). */
  echoFromNow(): void;
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
 * (docs/connections.md). Hot reload restarts the whole process instead (local/start.mjs).
 */
/** Where the local build is (scripts/build.mjs `LOCAL_LOCATION`). */
export const LOCAL_LOCATION = 'dist/offline';

export const OFFLINE_ARGS = [
  // Ends it when its starter is gone, even by SIGKILL (local/exitWithParent.cjs).
  '--require',
  resolve('local/exitWithParent.cjs'),
  // The one place every function bundle's copy of lib/processWide.ts keeps its values (local/processWide.cjs).
  '--require',
  resolve('local/processWide.cjs'),
  join('node_modules', 'serverless', 'bin', 'serverless.js'),
  'offline',
  'start',
];

/**
 * Prepares the database (embedded or server) and applies migrations (those already applied are skipped);
 * returns its URL. `at`: the embedded database's port and password, chosen beforehand; `folderReady`: the
 * data folder's preparation already under way.
 */
export async function prepareDatabase(
  databaseUrl: string | undefined,
  dataDir: string | undefined,
  at?: { port: number; password: string },
  folderReady?: Promise<void>,
): Promise<{ url: string; embedded: EmbeddedDatabase | null }> {
  const embedded = databaseUrl ? null : await startEmbedded(dataDir, at?.port, at?.password, folderReady);
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
  databaseReady: Promise<unknown>,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  // Its output is complete once its pipes close, which may come after the exit.
  const outputDone = new Promise((r) => child.once('close', r));
  // Asked before the database is ready, the service would answer 503 and log it.
  await databaseReady;
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

/** A free port other than those of `taken`. */
async function freePortBut(taken: number[]): Promise<number> {
  for (;;) {
    const p = await freePort();
    if (!taken.includes(p)) return p;
  }
}

/** The ports of `options`, and free ones for the rest (none of them `taken`). */
async function choosePorts(options: ServiceOptions, taken: number[] = []): Promise<ServicePorts> {
  const t = [...taken];
  const pick = async (named?: number) => {
    const p = named ?? (await freePortBut(t));
    t.push(p);
    return p;
  };
  return {
    port: await pick(options.port),
    lambdaPort: await pick(),
    websocketPort: await pick(options.websocketPort),
    s3Port: await pick(options.s3Port),
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
  const started = Date.now();
  const timings: StartTimings = { database: 0, firstAnswer: 0 };
  // The embedded database's port and password are chosen first, so serverless-offline (about 5 s of loading
  // its modules and registering the routes) starts while PGlite opens and migrations run.
  const at = options.databaseUrl ? undefined : { port: await freePort(), password: newPassword() };
  const databaseUrl = options.databaseUrl ?? embeddedUrl(at!.port, at!.password);
  let embedded: EmbeddedDatabase | null = null;
  const databaseReady = prepareDatabase(
    options.databaseUrl,
    options.dataDir,
    at,
    options.dataFolderReady,
  ).then((d) => {
    embedded = d.embedded;
    timings.database = Date.now() - started;
  });
  // Awaited by the first launch; marked handled here so a failure before that is not an unhandled rejection.
  databaseReady.catch(() => {});
  // The child's environment starts from this process's (a harness hands its whole environment on, so the
  // one read of process.env here builds it); the settings below are read from it through lib/settings.ts.
  const given: Env = { ...process.env, ...options.env };
  const inProcess = setting('OFFLINE_IN_PROCESS', given);
  const reserved = at ? [at.port] : [];
  let ports = await choosePorts(options, reserved);
  const s3Dir = options.s3Dir ?? mkdtempSync(join(tmpdir(), 'mmgis-s3-'));
  // Unset: serverless.yml's name for the local stage (custom.uploadBucket), which serverless-s3-local creates.
  keepPrefixFolders(s3Dir, setting('UPLOAD_BUCKET', given) ?? 'mmgis-dev-uploads');
  // DB_DRIVER=data-api without DB_CLUSTER_ARN: the functions reach the database through the Data API stand-in.
  const usesDataApi = setting('DB_DRIVER', given) === 'data-api';
  if (usesDataApi) await databaseReady.catch(() => {});
  const dataApi = await dataApiEnv(given, databaseUrl);
  const env = {
    ...given,
    ...dataApi?.env,
    DATABASE_URL: databaseUrl,
    // serverless-offline's two lines per request cost its single main thread about a quarter of its
    // throughput (docs/connections.md); SLS_LOG_LEVEL=notice brings them back.
    SLS_LOG_LEVEL: setting('SLS_LOG_LEVEL', given),
    // The local build (scripts/build.mjs: shared chunks, no source maps); OFFLINE_LOCATION=. runs the
    // per-function bundles under dist/ instead (a harness variable of serverless-offline's, not a setting
    // of the service's).
    OFFLINE_LOCATION: given.OFFLINE_LOCATION ?? LOCAL_LOCATION,
    S3_DIR: s3Dir,
    // Every function runs in serverless-offline's process and shares one pool per settings
    // (lib/db/index.ts getDb; docs/connections.md#one-process): sized for a map's tile burst.
    DB_POOL_MAX: String(settingIfSet('DB_POOL_MAX', given) ?? (inProcess ? 10 : 2)),
    // The local stand-ins' credentials (the Data API's and s3rver's accept any); the secret is the SDK's
    // variable, not one of the service's settings.
    AWS_ACCESS_KEY_ID: setting('AWS_ACCESS_KEY_ID', given),
    AWS_SECRET_ACCESS_KEY: given.AWS_SECRET_ACCESS_KEY ?? 'local',
    SLS_TELEMETRY_DISABLED: '1',
    SLS_NOTIFICATIONS_MODE: 'off',
    // One malloc arena (docs/connections.md, "The embedded database's memory"): glibc's arena per thread
    // kept what V8's background threads had freed. glibc's variable, not one of the service's settings.
    MALLOC_ARENA_MAX: given.MALLOC_ARENA_MAX ?? '1',
  };
  const lines: string[] = [];
  let partial = '';
  /** Whether `verbose` echoes now: from the start, or from `echoFromNow()` (`echoStartup: false`). */
  let echoing = options.echoStartup !== false;
  const collect = (d: Buffer, echo: NodeJS.WriteStream) => {
    if (options.verbose && echoing) echo.write(d);
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
    // Rows of this launch's WebSocket endpoint from before it are leftovers of a server stopped without
    // its $disconnects: forgotten once the database is ready, so they hold no place of their address's
    // cap (docs/live-updates.md, "Limits").
    const launchedAt = new Date();
    const forgotten = databaseReady
      .then(() => forgetLeftoverConnections(databaseUrl, portEnv(ports).WEBSOCKET_ENDPOINT, launchedAt))
      .catch((e) =>
        process.stderr.write(`earlier WebSocket connections not forgotten: ${(e as Error).message}\n`),
      );
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
    await waitForHttp(
      `http://127.0.0.1:${ports.port}/api/configure/missions`,
      child,
      120_000,
      takenPort,
      databaseReady,
    );
    await forgotten;
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
        ports = await choosePorts(options, reserved);
      }
    }
  };
  /** A launch after the first: its start-up output (the route table) is echoed only if the first one's was. */
  const quietLaunch = async () => {
    const was = echoing;
    echoing = options.echoStartup !== false;
    try {
      await launch();
    } finally {
      echoing = was;
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
    quietLaunch().then(
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
    // A database still opening is stopped once it opened.
    await databaseReady.catch(() => {});
    await (embedded as EmbeddedDatabase | null)?.stop();
    if (!options.s3Dir) rmSync(s3Dir, { recursive: true, force: true });
  };
  /** Set once serverless-offline first answered: from then on an exit nobody asked for is restarted. */
  let serving = false;
  try {
    // A new data folder's initdb (local/start.mjs starts it before its build) is the longest step of a
    // first start: serverless-offline's start (about 4 s of CPU) waits for it rather than share its cores,
    // and runs beside the database's opening instead (docs/connections.md, "The embedded database's first
    // start"). On a restart the folder is ready at once.
    await options.dataFolderReady?.catch(() => {});
    await launchOnFreePorts();
    serving = true;
    timings.firstAnswer = Date.now() - started;
  } catch (e) {
    await stop();
    throw new Error(`${(e as Error).message}\n${lines.slice(-100).join('\n')}`);
  }
  return {
    url: `http://127.0.0.1:${ports.port}`,
    databaseUrl,
    embedded: !options.databaseUrl,
    timings,
    lambdaPort: ports.lambdaPort,
    websocketPort: ports.websocketPort,
    s3Endpoint: `http://127.0.0.1:${ports.s3Port}`,
    pid: () => child.pid,
    logLines: () => (partial ? [...lines, partial] : [...lines]),
    echoFromNow: () => {
      echoing = true;
    },
    async restart() {
      await kill();
      await quietLaunch();
    },
    stop,
  };
}

/** Forgets the WebSocket connections recorded for `endpoint` before `before` (lib/events/connections.ts). */
async function forgetLeftoverConnections(url: string, endpoint: string, before: Date): Promise<void> {
  const db = createDb({ url, max: 1 });
  try {
    await forgetConnectionsOf(db.sql, endpoint, before);
  } finally {
    await db.end();
  }
}
