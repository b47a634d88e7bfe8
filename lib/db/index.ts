import postgres from 'postgres';
import { processWide } from '#lib/processWide.ts';
import { setting, settingIfSet } from '#lib/settings.ts';
import { createDataApiDb, dataApiConfigFromEnv } from './dataApi/index.ts';
import { insertRows } from './insertRows.ts';
import { secretConnection } from './secretConnection.ts';
import { followQueries } from './statementLog.ts';

export type Sql = postgres.Sql<Record<string, unknown>>;
export type TxSql = postgres.TransactionSql<Record<string, unknown>>;
/** Either the pool or a transaction: lib functions that can run inside a caller's transaction take this. */
export type Queryable = Sql | TxSql;

export interface Capabilities {
  /** PostGIS was built with protobuf: `ST_AsMVT` exists (false on the embedded database). */
  asMvt: boolean;
  postgisVersion: string;
  serverVersion: number;
}

/**
 * The one database interface of the service: a postgres.js tagged-template `sql` (values are always bound),
 * `transaction`, `insertRows` for batches, and a capability probe. The same driver talks to a PostGIS
 * server and to the embedded PGlite through its socket server.
 */
export interface Db {
  sql: Sql;
  transaction<T>(fn: (tx: TxSql) => Promise<T>): Promise<T>;
  /**
   * Inserts plain objects into `table` (an identifier from our own catalog, never request text) in one
   * statement through `json_to_recordset`, so a batch is one bound parameter. `columns` maps each column
   * to its SQL type; `select` may replace a column's value expression (e.g. `ST_GeomFromGeoJSON(geom)`).
   */
  insertRows(
    q: Queryable,
    table: string,
    columns: Record<string, string>,
    rows: Record<string, unknown>[],
    select?: Record<string, string>,
  ): Promise<number>;
  capabilities(): Promise<Capabilities>;
  /**
   * COPY FROM STDIN works here (a PostGIS server through postgres.js); false or absent on the embedded
   * database (its socket front does not carry COPY) and the Data API: writes then insert their batches.
   */
  copyIn?: boolean;
  end(): Promise<void>;
}

export interface DbOptions {
  url?: string;
  /** Milliseconds before any statement is cancelled (`STATEMENT_TIMEOUT_MS`, default 30000). */
  statementTimeoutMs?: number;
  /**
   * Pool size per process (`DB_POOL_MAX`, default 2): a Lambda instance serves one request at a time, and
   * the second connection only serves a pool query made while a transaction holds the first.
   */
  max?: number;
  /** Seconds before an idle connection is closed (`DB_IDLE_TIMEOUT_S`, default 10). */
  idleTimeoutS?: number;
  /** Seconds before a connection is replaced, busy or not (`DB_MAX_LIFETIME_S`, default 300). */
  maxLifetimeS?: number;
  /**
   * Seconds to wait for a connection (`DB_CONNECT_TIMEOUT_S`; default 5, or 30 on the embedded database,
   * where a new client queues behind whoever holds its one session: docs/connections.md).
   */
  connectTimeoutS?: number;
  /** `DB_PREPARE=false` for RDS Proxy / PgBouncer in transaction mode. */
  prepare?: boolean;
  /** `DB_DRIVER`: 'data-api' for the RDS Data API (docs/deploying.md); an explicit `url` means postgres. */
  driver?: DbDriver;
}

export type DbDriver = 'postgres' | 'data-api';

/** The driver `getDb()` uses (`DB_DRIVER`), reported by the healthcheck. */
export function dbDriverName(): DbDriver {
  return setting('DB_DRIVER');
}

export function createDb(options: DbOptions = {}): Db {
  const driver = options.driver ?? (options.url ? 'postgres' : dbDriverName());
  if (driver === 'data-api') return createDataApiDb(dataApiConfigFromEnv(), probe);
  // RDS Proxy / direct: the password from Secrets Manager, TLS verified (docs/deploying.md).
  const secret = options.url ? null : secretConnection();
  const given = options.url ?? secret?.url ?? setting('DATABASE_URL');
  if (!given) throw new Error('DATABASE_URL is not set');
  const { url, embedded } = parseDatabaseUrl(given);
  const statementTimeout = options.statementTimeoutMs ?? setting('STATEMENT_TIMEOUT_MS');
  // Each query is followed by its request's statement log: a handler that sent none may run again.
  const sql = followQueries(
    postgres(url, {
      // Sized for Lambda: see docs/connections.md for the budget (functions × instances × pool).
      max: options.max ?? setting('DB_POOL_MAX'),
      prepare: embedded ? false : (options.prepare ?? setting('DB_PREPARE')),
      idle_timeout: options.idleTimeoutS ?? setting('DB_IDLE_TIMEOUT_S'),
      max_lifetime: options.maxLifetimeS ?? setting('DB_MAX_LIFETIME_S'),
      connect_timeout:
        options.connectTimeoutS ??
        // The embedded database queues new clients behind a transaction: 30 s there (docs/connections.md).
        (embedded ? (settingIfSet('DB_CONNECT_TIMEOUT_S') ?? 30) : setting('DB_CONNECT_TIMEOUT_S')),
      onnotice: () => {},
      connection: {
        statement_timeout: statementTimeout,
        // No LLVM JIT: the service's statements are short, and a plan whose cost estimate crosses
        // jit_above_cost (a thinned tile's `id = any(array(...))`, estimated at ~1,000,000) spent 2.8 s of
        // 3.4 s compiling (docs/tiles.md, "Thinning").
        jit: 'off',
        application_name: setting('DB_APPLICATION_NAME'),
      },
      types: {
        // bigint ids and counts come back as numbers; our counts stay far below 2^53.
        bigint: {
          to: 20,
          from: [20],
          serialize: (x: number) => x.toString(),
          parse: (x: string) => Number(x),
        },
      },
      ...secret?.options,
    }) as unknown as Sql,
  );

  let caps: Promise<Capabilities> | undefined;

  return {
    sql,
    transaction: <T>(fn: (tx: TxSql) => Promise<T>) => sql.begin(fn as any) as Promise<T>,
    insertRows,
    copyIn: !embedded,
    capabilities() {
      caps ??= probe(sql, embedded).catch((e) => {
        caps = undefined;
        throw e;
      });
      return caps;
    },
    end: () => sql.end({ timeout: 5 }),
  };
}

export async function probe(sql: Sql, embedded = false): Promise<Capabilities> {
  const [row] = await sql`
    select exists(select 1 from pg_proc where proname = 'st_asmvt') as has_mvt,
           current_setting('server_version_num')::int as server_version,
           coalesce((select extversion from pg_extension where extname = 'postgis'), '') as postgis`;
  // PGlite's PostGIS is built without protobuf: one query instead of three for each new worker's pool.
  let asMvt = Boolean(row.has_mvt) && !embedded;
  if (asMvt) {
    // PGlite's PostGIS has the function but no protobuf: ask without provoking an error (an error here
    // made the embedded front return an empty result to the same client's next query under concurrency).
    try {
      const [v] = await sql`select postgis_libprotobuf_version() as v`;
      if (v?.v == null) asMvt = false;
    } catch {
      // older PostGIS without the function: fall through to the trial below
    }
  }
  if (asMvt) {
    // The function can exist while the library was built without protobuf: try it once.
    try {
      await sql`select ST_AsMVT(t) from (select 1 as a, ST_GeomFromText('POINT(1 1)') as geom) t`;
    } catch {
      asMvt = false;
    }
  }
  return { asMvt, postgisVersion: String(row.postgis), serverVersion: Number(row.server_version) };
}

/** Strips our `embedded=pglite` marker (the embedded database shares one session: no named statements). */
export function parseDatabaseUrl(given: string): { url: string; embedded: boolean } {
  const u = new URL(given);
  const embedded = u.searchParams.get('embedded') === 'pglite';
  u.searchParams.delete('embedded');
  return { url: u.toString(), embedded };
}

/**
 * The pools of this process, by connection settings. On Lambda a process is one function instance, so
 * this is one pool. Under `npm start` every function runs in serverless-offline's one process (each
 * function's bundle has its own copy of this module), and they share one pool per settings through
 * `globalThis`: the process holds at most `DB_POOL_MAX` connections per settings, however many functions
 * run (docs/connections.md).
 */
const pools = processWide(Symbol.for('mmgis-serverless.db.pools'), () => new Map<string, Db>());

const POOL_SETTINGS = [
  'DB_DRIVER',
  'DATABASE_URL',
  'STATEMENT_TIMEOUT_MS',
  'DB_POOL_MAX',
  'DB_PREPARE',
  'DB_CLUSTER_ARN',
] as const;

function poolKey(): string {
  return POOL_SETTINGS.map((k) => String(setting(k) ?? '')).join('\n');
}

/** The process-wide database, created on first use and reused across warm invocations. */
export function getDb(): Db {
  const key = poolKey();
  let db = pools.get(key);
  if (!db) {
    db = createDb();
    pools.set(key, db);
  }
  return db;
}

/** Closes the shared pools (CLI scripts and tests; a Lambda keeps them). */
export async function closeDb(): Promise<void> {
  const all = [...pools.values()];
  pools.clear();
  await Promise.all(all.map((db) => db.end()));
}
