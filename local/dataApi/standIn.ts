// One piece, though over 300 lines: `startDataApiStandIn` is one closure over one server's state (its two
// pools, its open transactions, the faults and resumption tests provoke, its counts), which every operation
// reads and changes; what holds none of it, the Data API's statement side (named parameters, typed values,
// its error), is statements.ts.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import postgres from 'postgres';
import { parseDatabaseUrl } from '#lib/db/index.ts';
import { freePort } from '../embedded/start.ts';
import { ApiError, type Field, FLOATS, INTS, type Param, paramValue, toPositional } from './statements.ts';

/**
 * A local stand-in for the RDS Data API (no emulator on npm works without Docker): the five operations
 * ExecuteStatement, BatchExecuteStatement, BeginTransaction, CommitTransaction and RollbackTransaction,
 * spoken in the real service's REST-JSON protocol so the real `@aws-sdk/client-rds-data` talks to it,
 * executed on the PostgreSQL/PostGIS database of `databaseUrl` (server or embedded) through postgres.js.
 *
 * What it models of the service (docs/deploying.md): `:name` parameters, typed by value (a `stringValue`
 * is `varchar`, `longValue` int8, `doubleValue` float8, typeHint JSON/TIMESTAMP/DATE/DECIMAL/UUID), typed
 * records with column metadata, the 1 MiB response and 64 KB row limits (BadRequestException), database
 * errors as DatabaseErrorException with the SQLSTATE, transactions dropped after 3 minutes idle, the SQL
 * text limit of 65536 characters, one statement per call (below), and the 45 s wait for a statement
 * (below). It checks no credentials.
 *
 * One statement per call: the Data API of Aurora Serverless v2 and provisioned clusters runs no
 * multi-statement text (Aurora user guide, "Comparing Amazon RDS Data API behaviors for Aurora Serverless v2
 * and provisioned clusters with Aurora Serverless v1 clusters", "Multi-statement support"; AWS's answer in
 * aws-sdk-js issue 4253: send the statements one by one). Every statement goes to PostgreSQL through the
 * extended protocol, as a driver that prepares it does, so PostgreSQL itself refuses text holding more than
 * one: `DatabaseErrorException` (HTTP 400) "cannot insert multiple commands into a prepared statement",
 * SQLState 42601. That AWS answers with exactly this message is not verified here; that it refuses is.
 *
 * The 45 s wait: "By default, the Data API cancels an operation and returns a timeout error if the
 * operation doesn't finish processing within 45 seconds ... you can specify the continueAfterTimeout
 * parameter ... Your application still receives the timeout error. However, the operation continues running
 * and isn't canceled" (Aurora user guide, "Controlling Data API timeout behavior"). So past `statementWaitMs`
 * a call answers `StatementTimeoutException` (HTTP 400, as in the SDK's model); the statement is cancelled,
 * unless the call asked `continueAfterTimeout`, when it runs on (in a transaction, the transaction's next
 * statement waits behind it on its connection).
 */

export interface StandInOptions {
  databaseUrl: string;
  port?: number;
  /** Default 1 MiB and 64 KiB, as on AWS; tests may lower them. */
  maxResponseBytes?: number;
  maxRowBytes?: number;
  /**
   * How long a call waits for its statement (45 s, as on AWS). Lower only in tests: a service started with
   * `DATA_API_STAND_IN_WAIT_MS` gets a stand-in with that wait (`dataApiEnv`).
   */
  statementWaitMs?: number;
}

/** The Data API's wait for a statement (docs/deploying.md, "Limits"). */
export const STATEMENT_WAIT_MS = 45_000;

/**
 * A failure for tests to provoke (docs/deploying.md): the next matching call is refused before it runs, or
 * runs and then its answer is lost, as a network or the service may lose it.
 */
export interface Fault {
  operation: 'Execute' | 'BeginTransaction' | 'CommitTransaction' | 'RollbackTransaction';
  /** Only statements whose SQL text matches. */
  sql?: RegExp;
  /** `after` (default): the call runs, then its answer is lost; `before`: it is refused and does not run. */
  when?: 'before' | 'after';
  /** `reset`: the connection is reset; `throttle`: 429 ThrottlingException; 500: the service's error; 502–504: a gateway's page. */
  answer: 'reset' | 'throttle' | 500 | 502 | 503 | 504;
  /** How many matching calls fail (default 1). */
  times?: number;
}

export interface StandIn {
  endpoint: string;
  /** Calls answered per operation, and refusals for size. */
  stats: Record<string, number>;
  /** Test-only: makes the next matching call fail as `fault` says. */
  failNext(fault: Fault): void;
  /**
   * Test-only: for the next `ms`, every call is answered `DatabaseResumingException` (HTTP 400) without
   * running, as while an auto-paused Aurora Serverless v2 cluster resumes.
   */
  resumeFor(ms: number): void;
  stop(): Promise<void>;
}

export async function startDataApiStandIn(options: StandInOptions): Promise<StandIn> {
  const { url, embedded } = parseDatabaseUrl(options.databaseUrl);
  const maxResponse = options.maxResponseBytes ?? 1024 * 1024;
  const maxRow = options.maxRowBytes ?? 64 * 1024;
  const waitMs = options.statementWaitMs ?? STATEMENT_WAIT_MS;
  let resumingUntil = 0;
  const raw = (x: unknown) => x;
  const connect = (max: number) =>
    postgres(url, {
      max,
      prepare: !embedded,
      onnotice: () => {},
      connection: { TimeZone: 'UTC', application_name: 'data-api-stand-in' },
      types: {
        json: { to: 114, from: [114, 3802], serialize: raw, parse: raw },
        date: { to: 1184, from: [1082, 1114, 1184], serialize: raw, parse: raw },
        bigint: { to: 20, from: [20], serialize: String, parse: Number },
        numeric: { to: 1700, from: [1700], serialize: String, parse: raw },
      } as never,
    });
  // Statements outside transactions never wait behind open transactions (the service has no such queue).
  // Ten, like the service's own pool (`DB_POOL_MAX`): with three, every test file's statements queued behind
  // the slow ones of the others, and under load 25 WebSocket subscribes took over 20 s.
  const sql = connect(10);
  const txPool = connect(10);
  const typeNames = new Map<number, string>();
  const typeName = async (oid: number) => {
    if (!typeNames.has(oid)) {
      for (const r of await sql`select oid::int as oid, typname from pg_type`)
        typeNames.set(r.oid, r.typname);
    }
    return typeNames.get(oid) ?? 'unknown';
  };
  const txs = new Map<string, { conn: postgres.ReservedSql; timer: NodeJS.Timeout }>();
  const stats: Record<string, number> = { refusedForSize: 0 };
  const faults: (Fault & { times: number })[] = [];
  const faultFor = (path: string, body: Record<string, unknown>) => {
    const i = faults.findIndex(
      (f) => `/${f.operation}` === path && (!f.sql || f.sql.test(String(body.sql ?? ''))),
    );
    if (i < 0) return undefined;
    const f = faults[i];
    if (--f.times <= 0) faults.splice(i, 1);
    return f;
  };

  const field = (type: string, v: unknown): Field => {
    if (v === null || v === undefined) return { isNull: true };
    if (type.startsWith('_') && Array.isArray(v)) {
      const base = type.slice(1);
      if (v.some(Array.isArray))
        return { arrayValue: { arrayValues: v.map((x) => field(type, x).arrayValue) } };
      if (INTS.has(base)) return { arrayValue: { longValues: v.map(Number) } };
      if (FLOATS.has(base)) return { arrayValue: { doubleValues: v.map(Number) } };
      if (base === 'bool') return { arrayValue: { booleanValues: v } };
      return { arrayValue: { stringValues: v.map((x) => (x === null ? null : String(x))) } };
    }
    if (INTS.has(type)) return { longValue: Number(v) };
    if (FLOATS.has(type))
      return Number.isFinite(Number(v)) ? { doubleValue: Number(v) } : { stringValue: String(v) };
    if (type === 'bool') return { booleanValue: v };
    if (type === 'bytea') return { blobValue: Buffer.from(v as Uint8Array).toString('base64') };
    // The service prints timestamps in UTC without an offset.
    if (type === 'timestamptz') return { stringValue: String(v).replace(/\+00(:00)?$/, '') };
    return { stringValue: typeof v === 'string' ? v : String(v) };
  };

  async function execute(body: Record<string, unknown>, paramsOverride?: Param[]) {
    const text = String(body.sql ?? '');
    if (!body.resourceArn || !body.secretArn)
      throw new ApiError(400, 'BadRequestException', 'resourceArn and secretArn are required.');
    if (text.length > 65536)
      throw new ApiError(400, 'BadRequestException', 'SQL text is longer than 65536 characters.');
    const params = paramsOverride ?? ((body.parameters as Param[]) || []);
    let conn: postgres.Sql = sql;
    if (body.transactionId) {
      const t = txs.get(String(body.transactionId));
      if (!t) throw new ApiError(404, 'NotFoundException', `Transaction ${body.transactionId} is not found`);
      t.timer.refresh();
      conn = t.conn;
    }
    const names = new Map(params.map((p, i) => [p.name, i + 1]));
    const values = params.map((p) => paramValue(sql, p));
    let res: postgres.RowList<postgres.Row[]>;
    try {
      // The extended protocol, parameters or not: PostgreSQL refuses multi-statement text (above).
      const query = conn.unsafe(toPositional(text, names), values as never[], { simple: false } as never);
      res = await withinWait(query, body.continueAfterTimeout === true);
    } catch (e) {
      const err = e as { message: string; code?: string };
      if (e instanceof ApiError || !err.code) throw e;
      throw new ApiError(400, 'DatabaseErrorException', `ERROR: ${err.message}; SQLState: ${err.code}`);
    }
    const result = Array.isArray(res.at?.(-1)) ? (res.at(-1) as unknown as typeof res) : res;
    const cols = result.columns ?? [];
    const types = await Promise.all(cols.map((c) => typeName(c.type)));
    const columnMetadata = cols.map((c, i) => ({ name: c.name, label: c.name, typeName: types[i], type: 0 }));
    const records = [...result].map((row) =>
      cols.map((c, i) => field(types[i], (row as Record<string, unknown>)[c.name])),
    );
    for (const r of records) {
      if (JSON.stringify(r).length > maxRow) {
        stats.refusedForSize++;
        throw new ApiError(
          400,
          'BadRequestException',
          'Database response exceeded size limit (64 KB per row)',
        );
      }
    }
    const command = result.command ?? '';
    const out = {
      records: cols.length ? records : undefined,
      columnMetadata: body.includeResultMetadata && cols.length ? columnMetadata : undefined,
      numberOfRecordsUpdated: /^(INSERT|UPDATE|DELETE|MERGE)/.test(command) ? (result.count ?? 0) : 0,
    };
    if (JSON.stringify(out).length > maxResponse) {
      stats.refusedForSize++;
      throw new ApiError(
        400,
        'BadRequestException',
        'Database returned more than the allowed response size limit',
      );
    }
    return out;
  }

  /** The statement's rows, or `StatementTimeoutException` once it has run `waitMs` (cancelled unless `goOn`). */
  async function withinWait<Q extends Promise<unknown> & { cancel(): unknown }>(
    query: Q,
    goOn: boolean,
  ): Promise<Awaited<Q>> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((ok) => {
      timer = setTimeout(() => ok('timeout'), waitMs);
    });
    try {
      const first = await Promise.race([query, timedOut]);
      if (first !== 'timeout') return first as Awaited<Q>;
    } finally {
      clearTimeout(timer);
    }
    stats.timedOut = (stats.timedOut ?? 0) + 1;
    if (goOn) query.catch(() => {});
    else {
      query.cancel();
      await query.catch(() => {});
    }
    throw new ApiError(
      400,
      'StatementTimeoutException',
      `The statement did not finish within ${waitMs / 1000} seconds${goOn ? '; it continues running' : ' and was cancelled'}.`,
    );
  }

  const ops: Record<string, (body: Record<string, unknown>) => Promise<unknown>> = {
    '/Execute': execute,
    '/BatchExecute': async (body) => {
      const sets = (body.parameterSets as Param[][]) ?? [[]];
      for (const set of sets) await execute(body, set);
      return { updateResults: sets.map(() => ({ generatedFields: [] })) };
    },
    '/BeginTransaction': async () => {
      const conn = await txPool.reserve();
      await conn.unsafe('begin');
      const id = randomBytes(18).toString('base64');
      const timer = setTimeout(() => void end(id, 'rollback'), 180_000);
      txs.set(id, { conn, timer });
      return { transactionId: id };
    },
    '/CommitTransaction': async (body) => ({
      transactionStatus: await end(String(body.transactionId), 'commit'),
    }),
    '/RollbackTransaction': async (body) => ({
      transactionStatus: await end(String(body.transactionId), 'rollback'),
    }),
  };

  async function end(id: string, how: 'commit' | 'rollback'): Promise<string> {
    const t = txs.get(id);
    if (!t) throw new ApiError(404, 'NotFoundException', `Transaction ${id} is not found`);
    txs.delete(id);
    clearTimeout(t.timer);
    try {
      await t.conn.unsafe(how);
    } catch (e) {
      const err = e as { message: string; code?: string };
      throw new ApiError(400, 'DatabaseErrorException', `ERROR: ${err.message}; SQLState: ${err.code}`);
    } finally {
      t.conn.release();
    }
    return how === 'commit' ? 'Transaction Committed' : 'Rollback Complete';
  }

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const path = (req.url ?? '').split('?')[0];
    const reply = (status: number, body: unknown, kind?: string) => {
      res.writeHead(status, {
        'content-type': 'application/json',
        ...(kind ? { 'x-amzn-errortype': kind } : {}),
      });
      res.end(JSON.stringify(body));
    };
    if (req.method === 'GET' && path === '/stats') return reply(200, stats);
    const op = ops[path];
    if (!op || req.method !== 'POST')
      return reply(404, { message: `Unknown operation ${path}` }, 'NotFoundException');
    stats[path] = (stats[path] ?? 0) + 1;
    const fail = (f: Fault) => {
      if (f.answer === 'reset') return void res.socket?.resetAndDestroy();
      if (f.answer === 'throttle') return reply(429, { message: 'Rate exceeded' }, 'ThrottlingException');
      if (f.answer === 500) return reply(500, { message: 'Internal error' }, 'InternalServerErrorException');
      res.writeHead(f.answer, { 'content-type': 'text/html' });
      res.end(`<html><body>${f.answer} from the gateway</body></html>`);
    };
    try {
      const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {};
      if (Date.now() < resumingUntil) {
        stats.resuming = (stats.resuming ?? 0) + 1;
        return reply(
          400,
          { message: 'The database is resuming after being auto-paused. Wait a few seconds and try again.' },
          'DatabaseResumingException',
        );
      }
      const fault = faultFor(path, body);
      if (fault?.when === 'before') return fail(fault);
      if (fault) {
        await op(body).catch(() => {});
        return fail(fault);
      }
      reply(200, await op(body));
    } catch (e) {
      if (e instanceof ApiError) return reply(e.status, { message: e.message }, e.kind);
      reply(500, { message: (e as Error).message }, 'InternalServerErrorException');
    }
  };

  const port = options.port ?? (await freePort());
  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((ok) => server.listen(port, '127.0.0.1', ok));
  return {
    endpoint: `http://127.0.0.1:${port}`,
    stats,
    failNext(fault) {
      faults.push({ ...fault, times: fault.times ?? 1 });
    },
    resumeFor(ms) {
      resumingUntil = Date.now() + ms;
    },
    async stop() {
      for (const id of [...txs.keys()]) await end(id, 'rollback').catch(() => {});
      const closed = new Promise((ok) => server.close(ok));
      server.closeAllConnections();
      await closed;
      await Promise.all([sql.end({ timeout: 5 }), txPool.end({ timeout: 5 })]);
    },
  };
}

/**
 * For `DB_DRIVER=data-api` without `DB_CLUSTER_ARN`: starts a stand-in in front of `databaseUrl` and
 * returns the functions' environment pointing at it (placeholder ARNs; nothing secret). Otherwise null.
 */
export async function dataApiEnv(
  env: Record<string, string | undefined>,
  databaseUrl: string,
): Promise<{ env: Record<string, string>; endpoint: string; stop(): Promise<void> } | null> {
  if (env.DB_DRIVER !== 'data-api' || env.DB_CLUSTER_ARN) return null;
  const standIn = await startDataApiStandIn({
    databaseUrl,
    statementWaitMs: Number(env.DATA_API_STAND_IN_WAIT_MS) || undefined,
  });
  return {
    endpoint: standIn.endpoint,
    env: {
      DB_DRIVER: 'data-api',
      DATA_API_ENDPOINT: standIn.endpoint,
      DB_CLUSTER_ARN: 'arn:aws:rds:us-east-1:000000000000:cluster:local-stand-in',
      DB_SECRET_ARN: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:local-stand-in',
      DB_NAME: new URL(databaseUrl).pathname.slice(1) || 'postgres',
    },
    stop: () => standIn.stop(),
  };
}
