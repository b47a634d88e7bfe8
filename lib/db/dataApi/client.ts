import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import {
  BeginTransactionCommand,
  CommitTransactionCommand,
  ExecuteStatementCommand,
  type ExecuteStatementCommandOutput,
  RDSDataClient,
  RollbackTransactionCommand,
} from '@aws-sdk/client-rds-data';
import { setting } from '#lib/settings.ts';
import { statementSending } from '../statementLog.ts';
import { type Compiled, toParameters } from './compile.ts';
import { type Column, columnsOf, rowsOf } from './records.ts';
import { didNotRun, isRead, withRetries } from './retries.ts';

/** Where the Data API calls go: the cluster, the secret holding its credentials, the database. */
export interface DataApiConfig {
  resourceArn: string;
  secretArn: string;
  database: string;
  /** A local stand-in (local/dataApi/standIn.ts); unset on AWS. */
  endpoint?: string;
  region?: string;
  /** The service's limits (1 MiB per response, 64 KB per row); lower only to test the oversize path. */
  maxResponseBytes?: number;
  maxRowBytes?: number;
  /** `IDLE_CONNECTION_MS`; lower only in a test. */
  idleConnectionMs?: number;
}

export interface Result {
  rows: Record<string, unknown>[];
  columns: Column[];
  updated: number;
}

/** A Data API refusal or a database error, with the SQLSTATE as `code` like postgres.js's errors. */
export class DataApiError extends Error {
  code?: string;
  /** The Data API exception name (`DatabaseErrorException`, `BadRequestException`, ...). */
  kind: string;
  constructor(kind: string, message: string, code?: string, cause?: unknown) {
    // The SDK's error as `cause`: a network code there (ECONNREFUSED, ECONNRESET) is a connection failure.
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'DataApiError';
    this.kind = kind;
    this.code = code;
  }
}

/** The response was over the Data API's 1 MiB, or a row over its 64 KB: the oversize path may read it. */
export function isTooLarge(e: unknown): boolean {
  return (
    e instanceof DataApiError &&
    /size limit|too large|exceed/i.test(e.message) &&
    e.kind !== 'DatabaseErrorException'
  );
}

function toError(e: unknown): Error {
  const err = e as { name?: string; message?: string };
  const message = err?.message ?? String(e);
  const kind = err?.name ?? 'Error';
  const state = /SQLState: ([0-9A-Z]{5})/.exec(message)?.[1];
  // A statement timeout answers like postgres.js's cancelled statement (57014), so handlers map it alike;
  // a cluster still resuming after the retries (lib/db/dataApi/retries.ts) like a server starting up
  // (57P03): a connection refused, answered 503 (lib/db/connectionErrors.ts).
  const code =
    state ??
    (kind === 'StatementTimeoutException'
      ? '57014'
      : kind === 'DatabaseResumingException'
        ? '57P03'
        : undefined);
  const text = message.replace(/^ERROR:\s*/, '').replace(/;?\s*SQLState: [0-9A-Z]{5}\s*$/, '');
  return new DataApiError(kind, text, code, e);
}

/**
 * A kept-alive connection idle this long (wall clock) is closed before the next call instead of reused.
 * The server may be closing it at that very moment (Node's default keep-alive is 5 s; the agent's own
 * timer, which honours the server's `Keep-Alive: timeout=` hint, fires late or not at all while the event
 * loop is blocked or the Lambda instance frozen). A call written into a connection the server closes fails
 * with a reset, which for a write leaves its outcome unknown (lib/db/dataApi/retries.ts), though the
 * service never received it.
 */
export const IDLE_CONNECTION_MS = 3000;

/** A kept-alive agent that notes when each of its connections became idle. */
function idleNotingAgent<A extends HttpAgent>(agent: A, idleSince: WeakMap<object, number>): A {
  agent.on('free', (socket) => idleSince.set(socket, Date.now()));
  return agent;
}

/** Closes the agent's connections idle for more than `ms`. */
function closeIdle(agent: HttpAgent, idleSince: WeakMap<object, number>, ms: number): void {
  const now = Date.now();
  for (const sockets of Object.values(agent.freeSockets)) {
    for (const socket of sockets ?? []) {
      if (now - (idleSince.get(socket) ?? 0) > ms) socket.destroy();
    }
  }
}

/** One process's Data API client; every call names the cluster, the secret and the database. */
export class DataApiClient {
  readonly client: RDSDataClient;
  calls = 0;
  /** When each kept-alive connection became idle (`Date.now()`). */
  private readonly idleSince = new WeakMap<object, number>();
  private readonly agents = [
    idleNotingAgent(new HttpAgent({ keepAlive: true }), this.idleSince),
    idleNotingAgent(new HttpsAgent({ keepAlive: true }), this.idleSince),
  ];
  constructor(readonly config: DataApiConfig) {
    this.client = new RDSDataClient({
      requestHandler: { httpAgent: this.agents[0], httpsAgent: this.agents[1] },
      region: config.region ?? setting('AWS_REGION'),
      // The local stand-in checks no signature; on AWS the function's role signs.
      ...(config.endpoint
        ? {
            endpoint: config.endpoint,
            credentials: {
              accessKeyId: setting('AWS_ACCESS_KEY_ID'),
              secretAccessKey: setting('AWS_SECRET_ACCESS_KEY'),
            },
          }
        : {}),
      // Retries are this client's, by what a failed call may have run (lib/db/dataApi/retries.ts).
      maxAttempts: 1,
    });
  }

  private get target() {
    return {
      resourceArn: this.config.resourceArn,
      secretArn: this.config.secretArn,
      database: this.config.database,
    };
  }

  /**
   * Sends one call, again as lib/db/dataApi/retries.ts allows (`repeatable`: running it twice is harmless).
   * A call that runs a statement is reported to the request's statement log unless it is proved not to.
   */
  private async send<T>(
    command: () => { readonly input: object },
    repeatable: boolean,
    runsStatement: boolean,
  ): Promise<T> {
    this.calls++;
    const idleMs = this.config.idleConnectionMs ?? IDLE_CONNECTION_MS;
    for (const agent of this.agents) closeIdle(agent, this.idleSince, idleMs);
    try {
      return await withRetries(async () => {
        const sent = runsStatement ? statementSending() : undefined;
        try {
          return (await this.client.send(command() as never)) as T;
        } catch (e) {
          if (didNotRun(e)) sent?.notRun();
          throw e;
        }
      }, repeatable);
    } catch (e) {
      throw toError(e);
    }
  }

  async execute(q: Compiled, transactionId?: string): Promise<Result> {
    const res = await this.send<ExecuteStatementCommandOutput>(
      () =>
        new ExecuteStatementCommand({
          ...this.target,
          sql: q.text,
          parameters: toParameters(q.values),
          transactionId,
          includeResultMetadata: true,
        }),
      !transactionId && isRead(q.text),
      true,
    );
    const columns = columnsOf(res.columnMetadata);
    return { rows: rowsOf(columns, res.records), columns, updated: res.numberOfRecordsUpdated ?? 0 };
  }

  /** Repeatable: a transaction begun twice leaves one unused, which the service ends after 3 minutes. */
  async begin(): Promise<string> {
    const res = await this.send<{ transactionId?: string }>(
      () => new BeginTransactionCommand(this.target),
      true,
      false,
    );
    return res.transactionId!;
  }

  /** Never repeated after a lost answer: the caller learns that the outcome is unknown. */
  async commit(transactionId: string): Promise<void> {
    await this.send(() => new CommitTransactionCommand({ ...this.target, transactionId }), false, true);
  }

  /** Repeatable: a second rollback finds no transaction, which is the wanted state. */
  async rollback(transactionId: string): Promise<void> {
    await this.send(() => new RollbackTransactionCommand({ ...this.target, transactionId }), true, false);
  }
}
