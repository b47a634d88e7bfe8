import {
  BeginTransactionCommand,
  CommitTransactionCommand,
  ExecuteStatementCommand,
  RDSDataClient,
  RollbackTransactionCommand,
} from '@aws-sdk/client-rds-data';
import { envText } from '#lib/settings.ts';
import { type Compiled, toParameters } from './compile.ts';
import { type Column, columnsOf, rowsOf } from './records.ts';

/** Where the Data API calls go: the cluster, the secret holding its credentials, the database. */
export interface DataApiConfig {
  resourceArn: string;
  secretArn: string;
  database: string;
  /** A local stand-in (scripts/dataApiStandIn.ts); unset on AWS. */
  endpoint?: string;
  region?: string;
  /** The service's limits (1 MiB per response, 64 KB per row); lower only to test the oversize path. */
  maxResponseBytes?: number;
  maxRowBytes?: number;
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
  constructor(kind: string, message: string, code?: string) {
    super(message);
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
  // A statement timeout answers like postgres.js's cancelled statement (57014), so handlers map it alike.
  const code = state ?? (kind === 'StatementTimeoutException' ? '57014' : undefined);
  const text = message.replace(/^ERROR:\s*/, '').replace(/;?\s*SQLState: [0-9A-Z]{5}\s*$/, '');
  return new DataApiError(kind, text, code);
}

/** One process's Data API client; every call names the cluster, the secret and the database. */
export class DataApiClient {
  readonly client: RDSDataClient;
  calls = 0;
  constructor(readonly config: DataApiConfig) {
    this.client = new RDSDataClient({
      region: config.region ?? envText('AWS_REGION') ?? 'us-east-1',
      // The local stand-in checks no signature; on AWS the function's role signs.
      ...(config.endpoint
        ? {
            endpoint: config.endpoint,
            credentials: {
              accessKeyId: envText('AWS_ACCESS_KEY_ID') ?? 'local',
              secretAccessKey: envText('AWS_SECRET_ACCESS_KEY') ?? 'local',
            },
          }
        : {}),
      maxAttempts: 3,
    });
  }

  private get target() {
    return {
      resourceArn: this.config.resourceArn,
      secretArn: this.config.secretArn,
      database: this.config.database,
    };
  }

  async execute(q: Compiled, transactionId?: string): Promise<Result> {
    this.calls++;
    for (let attempt = 1; ; attempt++) {
      try {
        const res = await this.client.send(
          new ExecuteStatementCommand({
            ...this.target,
            sql: q.text,
            parameters: toParameters(q.values),
            transactionId,
            includeResultMetadata: true,
          }),
        );
        const columns = columnsOf(res.columnMetadata);
        return { rows: rowsOf(columns, res.records), columns, updated: res.numberOfRecordsUpdated ?? 0 };
      } catch (e) {
        // Aurora Serverless v2 resuming from zero capacity: retried outside transactions only.
        if ((e as Error).name === 'DatabaseResumingException' && !transactionId && attempt < 5) {
          await new Promise((r) => setTimeout(r, 1000 * attempt));
          continue;
        }
        throw toError(e);
      }
    }
  }

  async begin(): Promise<string> {
    this.calls++;
    try {
      const res = await this.client.send(new BeginTransactionCommand(this.target));
      return res.transactionId!;
    } catch (e) {
      throw toError(e);
    }
  }

  async commit(transactionId: string): Promise<void> {
    this.calls++;
    try {
      await this.client.send(new CommitTransactionCommand({ ...this.target, transactionId }));
    } catch (e) {
      throw toError(e);
    }
  }

  async rollback(transactionId: string): Promise<void> {
    this.calls++;
    try {
      await this.client.send(new RollbackTransactionCommand({ ...this.target, transactionId }));
    } catch (e) {
      throw toError(e);
    }
  }
}
