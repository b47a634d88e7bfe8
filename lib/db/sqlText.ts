import { makeSql } from './dataApi/sql.ts';
import type { Fragment } from './fragments.ts';
import type { Sql } from './index.ts';

/**
 * The SQL text a fragment compiles to, without a database: `build` is given a `sql` that only compiles
 * (the Data API driver's, whose text names its parameters `:pN` where postgres.js writes `$N`; the two
 * differ by a character or so per parameter). For bounds that must be the same on every driver, such as a
 * filter's share of the Data API's statement limit (docs/cql2.md, "Limits").
 */
export function sqlTextOf(build: (sql: Sql) => Fragment): string {
  const never = () => {
    throw new Error('sqlTextOf: this sql only compiles; it runs nothing');
  };
  const sql = makeSql({ run: never, cursor: never }, never) as unknown as Sql;
  return (build(sql) as unknown as { compile(): { text: string } }).compile().text;
}
