import { type Env, setting } from '#lib/settings.ts';
import type { Capabilities, Db, Sql, TxSql } from '../index.ts';
import { insertRows } from '../insertRows.ts';
import { DataApiClient, type DataApiConfig } from './client.ts';
import type { Compiled } from './compile.ts';
import { fetchInBatches, fetchInOwnTransaction } from './cursor.ts';
import { type DataApiSql, makeSql, runStatement } from './sql.ts';

export { DataApiClient, type DataApiConfig, DataApiError } from './client.ts';

/** The Data API target from the environment: `DB_CLUSTER_ARN`, `DB_SECRET_ARN`, `DB_NAME`, `DATA_API_ENDPOINT`. */
export function dataApiConfigFromEnv(env?: Env): DataApiConfig {
  const resourceArn = setting('DB_CLUSTER_ARN', env);
  const secretArn = setting('DB_SECRET_ARN', env);
  if (!resourceArn || !secretArn)
    throw new Error('DB_DRIVER=data-api needs DB_CLUSTER_ARN and DB_SECRET_ARN');
  return {
    resourceArn,
    secretArn,
    database: setting('DB_NAME', env),
    endpoint: setting('DATA_API_ENDPOINT', env),
  };
}

/**
 * The `Db` of lib/db/index.ts over the RDS Data API (docs/deploying.md): no connections, IAM auth, the
 * credentials in Secrets Manager. Transactions are BeginTransaction / CommitTransaction /
 * RollbackTransaction with the transaction id on every statement, run one at a time.
 */
export function createDataApiDb(
  config: DataApiConfig,
  probe: (sql: Sql) => Promise<Capabilities>,
): Db & { api: DataApiClient } {
  const api = new DataApiClient(config);

  const begin = async <T>(fn: (tx: DataApiSql) => Promise<T>): Promise<T> => {
    const id = await api.begin();
    let chain: Promise<unknown> = Promise.resolve();
    const runner = {
      run(q: Compiled) {
        const p = chain.then(() => runStatement(api, q, id));
        chain = p.catch(() => {});
        return p;
      },
      cursor: (q: Compiled, rows: number) => fetchInBatches(runner.run, q, rows, api.config),
    };
    const tx = makeSql(runner, () => Promise.reject(new Error('nested transactions are not supported')));
    try {
      const result = await fn(tx);
      await chain;
      await api.commit(id);
      return result;
    } catch (e) {
      await chain;
      await api.rollback(id).catch(() => {});
      throw e;
    }
  };

  const sqlApi = makeSql(
    { run: (q) => runStatement(api, q), cursor: (q, rows) => fetchInOwnTransaction(api, q, rows) },
    begin,
  );
  const sql = sqlApi as unknown as Sql;
  let caps: Promise<Capabilities> | undefined;

  return {
    api,
    sql,
    transaction: <T>(fn: (tx: TxSql) => Promise<T>) => begin(fn as unknown as (tx: DataApiSql) => Promise<T>),
    insertRows,
    capabilities() {
      caps ??= probe(sql).catch((e) => {
        caps = undefined;
        throw e;
      });
      return caps;
    },
    end: async () => {
      api.client.destroy();
    },
  };
}
