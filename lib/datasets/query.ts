import type { Queryable } from '#lib/db/index.ts';
import { type Dataset, findDataset, rowCells } from './store.ts';

/** Most queries in one request (docs/datasets.md): the map client sends one per `datasetLinks` entry. */
export const MAX_QUERIES = 50;
const MAX_RESULTS = 100;

/** A scalar of a query: strings ≤ 1024 characters, any finite number. */
const scalar = {
  type: ['string', 'number', 'boolean', 'null'],
  maxLength: 1024,
  minimum: -Number.MAX_VALUE,
  maximum: Number.MAX_VALUE,
} as const;

/**
 * One query of `datasets/get`: the map client sends its layer's `variables.datasetLinks` entries (with
 * their own `prop` and `type`, kept in the schema's bounds) and the clicked feature's value as `search`.
 */
const datasetQuery = {
  type: 'object',
  required: ['dataset', 'column'],
  maxProperties: 32,
  properties: {
    dataset: { type: 'string', maxLength: 128 },
    column: { type: 'string', maxLength: 1024 },
    search: scalar,
  },
  additionalProperties: scalar,
} as const;

/** `queries` as a list (the JSON body's); the form's JSON text is checked against the same schema. */
export const datasetQueries = { type: 'array', maxItems: MAX_QUERIES, items: datasetQuery } as const;

export interface DatasetQuery {
  dataset: string;
  column: string;
  search?: string | number | boolean | null;
}

export interface QueryAnswer {
  dataset: string;
  column: string;
  search: unknown;
  results: Record<string, string>[];
  error?: string;
}

/** `search` as the text it is compared with (values are stored as text), or null when there is none. */
function asText(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return null;
}

/**
 * Answers each query in order: the rows of `dataset` whose `column` equals `search` as text (at most 100,
 * in row order). An unknown dataset or column, or no `search`, gives that entry `results: []` and an
 * `error`. Identical queries are run once (their answers are shared), each dataset is looked up once.
 */
export async function runQueries(sql: Queryable, queries: DatasetQuery[]): Promise<QueryAnswer[]> {
  const datasets = new Map<string, Promise<Dataset | null>>();
  const lookups = new Map<string, Promise<Pick<QueryAnswer, 'results' | 'error'>>>();
  const lookup = (q: DatasetQuery) => {
    const key = JSON.stringify([q.dataset, q.column, asText(q.search)]);
    let found = lookups.get(key);
    if (!found) {
      if (!datasets.has(q.dataset)) datasets.set(q.dataset, findDataset(sql, q.dataset));
      found = answer(sql, datasets.get(q.dataset)!, q);
      lookups.set(key, found);
    }
    return found;
  };
  const out: QueryAnswer[] = [];
  // One query after the other: a request holds one connection.
  for (const q of queries) {
    const { results, error } = await lookup(q);
    out.push({
      dataset: q.dataset,
      column: q.column,
      search: q.search,
      results,
      ...(error ? { error } : {}),
    });
  }
  return out;
}

async function answer(
  sql: Queryable,
  dataset: Promise<Dataset | null>,
  q: DatasetQuery,
): Promise<Pick<QueryAnswer, 'results' | 'error'>> {
  const search = asText(q.search);
  if (search === null) return { results: [], error: "'search' must be a string or a number." };
  const ds = await dataset;
  if (!ds) return { results: [], error: `Dataset '${q.dataset}' not found.` };
  if (!ds.columns.includes(q.column)) {
    return { results: [], error: `Dataset '${ds.name}' has no column '${q.column}'.` };
  }
  const rows = await sql`
    select data from dataset_rows
    where dataset_id = ${ds.id} and data @> ${sql.json({ [q.column]: search })}::jsonb
    order by idx limit ${MAX_RESULTS}`;
  const results = rows.map((r) =>
    Object.fromEntries(rowCells(r.data, ds.columns).map((v, i) => [ds.columns[i], v])),
  );
  return { results };
}
