import type { Db, Queryable, TxSql } from '#lib/db/index.ts';
import { notFound } from '#lib/errors.ts';
import type { Table } from './csv.ts';

const BATCH = 5000;

export type WriteMode = 'replace' | 'append';

export interface Dataset {
  id: number;
  name: string;
  columns: string[];
  rows: number;
  updated: string;
}

function toDataset(r: Record<string, unknown>): Dataset {
  return {
    id: Number(r.id),
    name: r.name as string,
    columns: r.columns as string[],
    rows: Number(r.num_rows),
    updated: new Date(r.updated_at as string).toISOString(),
  };
}

export async function findDataset(sql: Queryable, name: string): Promise<Dataset | null> {
  const rows = await sql`select * from datasets where name = ${name}`;
  return rows.length ? toDataset(rows[0]) : null;
}

export async function requireDataset(sql: Queryable, name: string): Promise<Dataset> {
  const d = await findDataset(sql, name);
  if (!d) throw notFound(`Dataset '${name}' not found.`);
  return d;
}

async function insertRows(tx: TxSql, id: number, columns: string[], rows: string[][], first: number) {
  for (let i = 0; i < rows.length; i += BATCH) {
    // Object.fromEntries defines own keys: a `__proto__` column is data, not the object's prototype.
    const batch = rows
      .slice(i, i + BATCH)
      .map((r) => Object.fromEntries(columns.map((c, j) => [c, r[j] ?? ''])));
    await tx`
      insert into dataset_rows (dataset_id, idx, data)
      select ${id}, ${first + i}::int + t.ord::int, t.value
      from jsonb_array_elements(${tx.json(batch)}::jsonb) with ordinality as t(value, ord)`;
  }
}

/**
 * Stores `table` under `name` in one transaction: `replace` swaps every row (readers see the old table
 * until commit), `append` adds rows after the existing ones, widening the header with new columns
 * (existing rows read those cells as empty). Either creates the dataset when it does not exist.
 */
export async function writeDataset(
  db: Db,
  name: string,
  table: Table,
  mode: WriteMode,
): Promise<{ name: string; rows: number; columns: string[]; added: number }> {
  return db.transaction(async (tx) => {
    await tx`insert into datasets (name) values (${name}) on conflict (name) do nothing`;
    const [cur] = await tx`select * from datasets where name = ${name} for update`;
    const ds = toDataset(cur);
    let columns = table.columns;
    let first = 0;
    if (mode === 'append') {
      columns = [...ds.columns, ...table.columns.filter((c) => !ds.columns.includes(c))];
      first = ds.rows;
    } else {
      await tx`delete from dataset_rows where dataset_id = ${ds.id}`;
    }
    await insertRows(tx, ds.id, table.columns, table.rows, first);
    const total = first + table.rows.length;
    await tx`
      update datasets set columns = ${tx.json(columns)}, num_rows = ${total}, updated_at = now()
      where id = ${ds.id}`;
    return { name, rows: total, columns, added: table.rows.length };
  });
}

/**
 * The cells of a stored row in `columns` order ('' for columns added after the row was written). Own keys
 * only: a `constructor` or `__proto__` column is read as data, never from the object's prototype.
 */
export function rowCells(data: unknown, columns: string[]): string[] {
  const row = data as Record<string, string>;
  return columns.map((c) => (Object.hasOwn(row, c) ? row[c] : ''));
}

/** Every row in order, each cell as text ('' for columns added after the row was written). */
export async function readTable(sql: Queryable, ds: Dataset): Promise<Table> {
  const rows = await sql`select data from dataset_rows where dataset_id = ${ds.id} order by idx`;
  return { columns: ds.columns, rows: rows.map((r) => rowCells(r.data, ds.columns)) };
}

export function toObjects(table: Table): Record<string, string>[] {
  return table.rows.map((r) => Object.fromEntries(table.columns.map((c, i) => [c, r[i]])));
}

export async function removeDataset(sql: Queryable, name: string): Promise<void> {
  const rows = await sql`delete from datasets where name = ${name} returning id`;
  if (!rows.length) throw notFound(`Dataset '${name}' not found.`);
}

export async function listDatasets(sql: Queryable): Promise<Dataset[]> {
  return (await sql`select * from datasets order by name collate "C"`).map(toDataset);
}
