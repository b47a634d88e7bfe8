import type { Db, Queryable, TxSql } from '#lib/db/index.ts';
import { badRequest, notFound } from '#lib/errors.ts';
import type { Table } from './csv.ts';

const NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const BATCH = 5000;

export type WriteMode = 'replace' | 'append';

export interface Dataset {
  id: number;
  name: string;
  columns: string[];
  rows: number;
  updated: string;
}

/** Names follow the geodataset rule (docs/datasets.md): 1–128 letters, digits, `_`, `-`, `.`. */
export function assertName(name: unknown, field = 'name'): string {
  if (typeof name !== 'string' || !NAME.test(name)) {
    throw badRequest(
      `'${field}' must be 1-128 characters of letters, digits, '_', '-' or '.' (got ${JSON.stringify(name)?.slice(0, 80)}).`,
    );
  }
  return name;
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
  const d = await findDataset(sql, assertName(name, 'layer'));
  if (!d) throw notFound(`Dataset '${name}' not found.`);
  return d;
}

async function insertRows(tx: TxSql, id: number, columns: string[], rows: string[][], first: number) {
  for (let i = 0; i < rows.length; i += BATCH) {
    const batch = rows.slice(i, i + BATCH).map((r) => {
      const o: Record<string, string> = {};
      columns.forEach((c, j) => {
        o[c] = r[j] ?? '';
      });
      return o;
    });
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

/** Every row in order, each cell as text ('' for columns added after the row was written). */
export async function readTable(sql: Queryable, ds: Dataset): Promise<Table> {
  const rows = await sql`select data from dataset_rows where dataset_id = ${ds.id} order by idx`;
  return {
    columns: ds.columns,
    rows: rows.map((r) => ds.columns.map((c) => ((r.data as Record<string, string>)[c] ?? '') as string)),
  };
}

export function toObjects(table: Table): Record<string, string>[] {
  return table.rows.map((r) => Object.fromEntries(table.columns.map((c, i) => [c, r[i]])));
}

export async function removeDataset(sql: Queryable, name: string): Promise<void> {
  const rows = await sql`delete from datasets where name = ${assertName(name)} returning id`;
  if (!rows.length) throw notFound(`Dataset '${name}' not found.`);
}

export async function listDatasets(sql: Queryable): Promise<Dataset[]> {
  return (await sql`select * from datasets order by name collate "C"`).map(toDataset);
}
