import type { DataApiClient, Result } from './client.ts';
import { isTooLarge } from './client.ts';
import {
  buildTemplate,
  buildUnsafe,
  type Compiled,
  Identifier,
  type Inlinable,
  JsonValue,
  quoteIdentifier,
} from './compile.ts';
import { isRead, readOversize } from './oversize.ts';

/**
 * A postgres.js-compatible `sql` over the Data API: the same tagged templates, fragments, identifiers,
 * `sql.json`, `sql.unsafe` and `sql.begin`; results are arrays of row objects with `count`, `command` and
 * `columns`. A query runs when awaited (like postgres.js), so an unawaited one is a fragment to inline.
 */

export type Rows = Record<string, unknown>[] & {
  count: number;
  command: string;
  columns: { name: string; type: string }[];
};

/** Runs compiled statements; a transaction's runner serializes them on its transaction id. */
export interface Runner {
  run(q: Compiled): Promise<Result>;
  /** `query.cursor(rows)`: the query's rows in batches (lib/db/dataApi/cursor.ts). */
  cursor(q: Compiled, rows: number): AsyncIterable<Record<string, unknown>[]>;
}

class Query implements Inlinable, PromiseLike<Rows> {
  private promise?: Promise<Rows>;
  constructor(
    private readonly runner: Runner,
    private readonly builder: (out: Compiled) => void,
  ) {}

  build(out: Compiled): void {
    this.builder(out);
  }

  /** As postgres.js's `query.cursor(rows)`: batches of rows, read as they are consumed. */
  cursor(rows = 1): AsyncIterable<Record<string, unknown>[]> {
    return this.runner.cursor(this.compile(), rows);
  }

  compile(): Compiled {
    const out: Compiled = { text: '', values: [] };
    this.build(out);
    return out;
  }

  private execute(): Promise<Rows> {
    this.promise ??= (async () => {
      const q = this.compile();
      const res = await this.runner.run(q);
      const rows = res.rows as Rows;
      const command = /^\s*\(?\s*([a-z]+)/i.exec(q.text)?.[1]?.toUpperCase() ?? '';
      rows.command = command;
      rows.count =
        command === 'SELECT' || command === 'WITH' || command === 'VALUES' ? rows.length : res.updated;
      rows.columns = res.columns;
      return rows;
    })();
    return this.promise;
  }

  // A thenable on purpose: postgres.js queries run when awaited, and lib code relies on that.
  // biome-ignore lint/suspicious/noThenProperty: the postgres.js query protocol
  then<A = Rows, B = never>(
    ok?: ((v: Rows) => A | PromiseLike<A>) | null,
    fail?: ((e: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.execute().then(ok, fail);
  }

  catch<B = never>(fail?: ((e: unknown) => B | PromiseLike<B>) | null): Promise<Rows | B> {
    return this.execute().catch(fail);
  }

  finally(f?: (() => void) | null): Promise<Rows> {
    return this.execute().finally(f);
  }
}

export interface DataApiSql {
  (strings: TemplateStringsArray, ...values: unknown[]): Query;
  (name: string | string[]): Identifier;
  json(value: unknown): JsonValue;
  unsafe(text: string, values?: unknown[]): Query;
  begin<T>(fn: (tx: DataApiSql) => Promise<T>): Promise<T>;
  end(): Promise<void>;
}

export function makeSql(runner: Runner, begin: DataApiSql['begin']): DataApiSql {
  const sql = ((first: unknown, ...rest: unknown[]) => {
    if (Array.isArray(first) && 'raw' in (first as object)) {
      const strings = first as unknown as TemplateStringsArray;
      return new Query(runner, (out) => buildTemplate(out, strings, rest));
    }
    if (typeof first === 'string') return new Identifier(quoteIdentifier(first));
    if (Array.isArray(first) && first.every((x) => typeof x === 'string')) {
      return new Identifier(first.map(quoteIdentifier).join(', '));
    }
    throw new Error('this driver supports sql`...`, sql(identifier) and sql(identifiers) only');
  }) as DataApiSql;
  sql.json = (value) => new JsonValue(value);
  sql.unsafe = (text, values = []) => new Query(runner, (out) => buildUnsafe(out, text, values));
  sql.begin = begin;
  sql.end = async () => {};
  return sql;
}

/**
 * Runs one statement; an answer over the Data API's size limits is read again through the oversize
 * path (reads only), in the caller's transaction or in one of its own.
 */
export async function runStatement(api: DataApiClient, q: Compiled, tx?: string): Promise<Result> {
  try {
    return await api.execute(q, tx);
  } catch (e) {
    if (!isTooLarge(e) || !isRead(q.text)) throw e;
    if (tx) return readOversize(api, q, tx);
    const own = await api.begin();
    try {
      const res = await readOversize(api, q, own);
      await api.commit(own);
      return res;
    } catch (e2) {
      await api.rollback(own).catch(() => {});
      throw e2;
    }
  }
}
