import type { Queryable } from './index.ts';

const identifier = /^[a-z_][a-z0-9_]*$/;

/**
 * `Db.insertRows` for both drivers: one `insert ... select ... from json_to_recordset($1::json)`, so a batch
 * is one bound parameter. `table` and the column names come from our own catalog (checked here anyway).
 */
export async function insertRows(
  q: Queryable,
  table: string,
  columns: Record<string, string>,
  rows: Record<string, unknown>[],
  select: Record<string, string> = {},
): Promise<number> {
  if (rows.length === 0) return 0;
  const names = Object.keys(columns);
  for (const n of [table, ...names]) if (!identifier.test(n)) throw new Error(`bad identifier ${n}`);
  const defs = names.map((n) => `${n} ${columns[n]}`).join(', ');
  const exprs = names.map((n) => select[n] ?? n).join(', ');
  const text = `insert into ${table} (${names.join(', ')}) select ${exprs} from json_to_recordset($1::json) as r(${defs})`;
  const res = await q.unsafe(text, [rows as never]);
  return res.count;
}
