import { StatementLog } from './statementLog.ts';

/**
 * Failures to get or keep a database connection (docs/connections.md): a handler none of whose statements
 * reached the database is run once more after a jittered wait; otherwise, or when the retry fails too,
 * the endpoint answers 503 with `Retry-After` (never a 500, never a hang).
 */

/**
 * `refused`: the connection was never made (too many clients, starting up, nothing listening, connect
 * timeout), so the failing statement did not run. `lost`: an open connection broke (reset, timed out,
 * terminated by the server); the statement may have run.
 */
export type ConnectionFailure = 'refused' | 'lost';

const refused = new Set([
  '53300', // too_many_connections (server-wide max_connections or a role's CONNECTION LIMIT)
  '57P03', // cannot_connect_now (starting up, shutting down, recovery)
  '08001', // sqlclient_unable_to_establish_sqlconnection
  '08004', // sqlserver_rejected_establishment_of_sqlconnection
  'CONNECT_TIMEOUT', // postgres.js: connect_timeout elapsed
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

const lost = new Set([
  'ECONNRESET',
  'ETIMEDOUT', // also an established socket that stopped answering, after statements were sent
  'EPIPE',
  '08006', // connection_failure
  '08003', // connection_does_not_exist
  '57P01', // admin_shutdown: the server (or RDS Proxy) terminated the connection
  '57P02', // crash_shutdown
  'CONNECTION_CLOSED', // postgres.js: the socket closed under a query
  'CONNECTION_DESTROYED',
]);

function codesOf(error: unknown, depth = 0): string[] {
  if (typeof error !== 'object' || error === null || depth > 3) return [];
  const e = error as { code?: unknown; errno?: unknown; cause?: unknown; errors?: unknown };
  const out: string[] = [];
  if (typeof e.code === 'string') out.push(e.code);
  if (typeof e.errno === 'string') out.push(e.errno);
  // Node's happy-eyeballs connect gives an AggregateError of one error per address.
  if (Array.isArray(e.errors)) for (const x of e.errors) out.push(...codesOf(x, depth + 1));
  if (e.cause) out.push(...codesOf(e.cause, depth + 1));
  return out;
}

/** What kind of connection failure `error` is, or null for any other error. */
export function connectionFailure(error: unknown): ConnectionFailure | null {
  const codes = codesOf(error);
  if (codes.some((c) => refused.has(c))) return 'refused';
  if (codes.some((c) => lost.has(c))) return 'lost';
  return null;
}

const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

/** The wait before the one retry: 100–500 ms, random so that instances refused together spread out. */
export function retryDelayMs(random = Math.random): number {
  return 100 + Math.floor(random() * 400);
}

/**
 * Runs `fn` (a request's handler); if it fails for want of a connection and none of its statements was
 * sent (lib/db/statementLog.ts: either driver reports there), waits a jittered moment and runs it once
 * more. A handler that sent a statement is never run again, since a write may have reached the database,
 * unless the caller says `fn` only reads (the caller's lookup in the authentication middleware).
 */
export async function withConnectionRetry<T>(fn: () => Promise<T>, readOnly = false): Promise<T> {
  const first = new StatementLog();
  try {
    return await first.run(fn);
  } catch (e) {
    if (connectionFailure(e) === null || (first.anySent() && !readOnly)) throw e;
    await sleep(retryDelayMs());
    return new StatementLog().run(fn);
  }
}

export interface Unavailable {
  statusCode: 503;
  retryAfterSeconds: number;
  message: string;
}

/** The answer for a connection failure that outlived its retry (null: not a connection failure). */
export function unavailableAnswer(error: unknown): Unavailable | null {
  const kind = connectionFailure(error);
  if (kind === null) return null;
  const codes = codesOf(error);
  const why = codes.includes('53300')
    ? 'the database has no free connection (too many clients)'
    : codes.includes('57P03')
      ? 'the database is starting up or shutting down'
      : kind === 'refused'
        ? 'the database could not be reached'
        : 'the connection to the database was lost';
  return {
    statusCode: 503,
    retryAfterSeconds: 2,
    message: `Service temporarily unavailable: ${why}. Retry in a few seconds.`,
  };
}
