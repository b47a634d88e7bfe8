import type { Queryable } from '#lib/db/index.ts';
import { badRequest } from '#lib/errors.ts';
import { findDataset } from './store.ts';

const MAX_QUERIES = 100;
const MAX_RESULTS = 100;

export interface DatasetQuery {
  dataset: unknown;
  column: unknown;
  search: unknown;
}

export interface QueryAnswer {
  dataset: unknown;
  column: unknown;
  search: unknown;
  results: Record<string, string>[];
  error?: string;
}

/** `queries`: a list of `{dataset, column, search}`, or a string holding that JSON (MMGIS's form post). */
export function parseQueries(queries: unknown): DatasetQuery[] {
  let q = queries;
  if (q === undefined || q === null || q === '') throw badRequest("Missing required body field 'queries'.");
  if (typeof q === 'string') {
    try {
      q = JSON.parse(q);
    } catch {
      throw badRequest("'queries' must be a list of {dataset, column, search} or a string holding one.");
    }
  }
  if (!Array.isArray(q)) throw badRequest("'queries' must be a list of {dataset, column, search}.");
  if (q.length > MAX_QUERIES) throw badRequest(`'queries' holds more than ${MAX_QUERIES} queries.`);
  return q.map((e, i) => {
    if (!e || typeof e !== 'object' || Array.isArray(e))
      throw badRequest(`'queries[${i}]' must be an object.`);
    const o = e as Record<string, unknown>;
    return { dataset: o.dataset, column: o.column, search: o.search };
  });
}

function asText(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return null;
}

/**
 * Answers each query on its own: the rows of `dataset` whose `column` equals `search` as text (at most
 * 100, in row order). An unknown dataset or column gives that entry `results: []` and an `error`.
 */
export async function runQueries(sql: Queryable, queries: DatasetQuery[]): Promise<QueryAnswer[]> {
  const out: QueryAnswer[] = [];
  for (const q of queries) {
    const answer: QueryAnswer = { dataset: q.dataset, column: q.column, search: q.search, results: [] };
    out.push(answer);
    const search = asText(q.search);
    if (typeof q.dataset !== 'string') answer.error = "'dataset' must be a string.";
    else if (typeof q.column !== 'string') answer.error = "'column' must be a string.";
    else if (search === null) answer.error = "'search' must be a string or a number.";
    if (answer.error) continue;
    const ds = await findDataset(sql, q.dataset as string);
    if (!ds) {
      answer.error = `Dataset '${q.dataset}' not found.`;
      continue;
    }
    const column = q.column as string;
    if (!ds.columns.includes(column)) {
      answer.error = `Dataset '${ds.name}' has no column '${column}'.`;
      continue;
    }
    const rows = await sql`
      select data from dataset_rows
      where dataset_id = ${ds.id} and data @> ${sql.json({ [column]: search })}::jsonb
      order by idx limit ${MAX_RESULTS}`;
    answer.results = rows.map((r) =>
      Object.fromEntries(ds.columns.map((c) => [c, (r.data as Record<string, string>)[c] ?? ''])),
    );
  }
  return out;
}
