import { type DataApiClient, isTooLarge, type Result } from './client.ts';
import type { Compiled } from './compile.ts';
import { chunking } from './oversize.ts';
import { fromJson } from './records.ts';

/** Runs one statement in the cursor's transaction. */
export type Run = (q: Compiled) => Promise<Result>;

type Row = Record<string, unknown>;

/** Most chunk rows one FETCH asks for, whatever their size. */
const MAX_FETCH = 4096;
let counter = 0;

/**
 * postgres.js's `query.cursor(rows)` over the Data API (docs/deploying.md): the Data API has no portal, so
 * the query becomes a `DECLARE ... SCROLL CURSOR` in `run`'s transaction, read with `FETCH FORWARD n`.
 * Each row is serialized as JSON bytes (`to_jsonb`) and cut into chunks of half the row limit, so no
 * returned row is over the 64 KB limit; `n` follows the widest chunk of the previous page to stay under
 * 70 % of the 1 MiB response limit, and a page refused for size anyway is read again smaller (`MOVE
 * ABSOLUTE` back, `n / 4`). Rows come back decoded with their column types, `rows` per batch (the rest
 * at the end), as postgres.js gives them: the database and the function each hold about one page.
 */
export async function* fetchInBatches(
  run: Run,
  q: Compiled,
  rows: number,
  limits: { maxRowBytes?: number; maxResponseBytes?: number } = {},
): AsyncGenerator<Row[]> {
  const maxResponse = limits.maxResponseBytes ?? 1024 * 1024;
  const { chunk } = chunking(limits.maxRowBytes, maxResponse);
  const budget = Math.floor(maxResponse * 0.7);
  const text = q.text.trim().replace(/;\s*$/, '');
  // The columns and their types: LIMIT 0 plans the query without running it.
  const { columns } = await run({ text: `select * from (${text}) mmgis_q limit 0`, values: q.values });
  const name = `mmgis_cursor_${process.pid}_${++counter}`;
  // `offset 0` keeps each row's bytes computed once (not once per chunk); the lateral series keeps the
  // query's row order.
  await run({
    text: `declare ${name} scroll cursor for
      select k.k, substring(x.b from k.k::int for ${chunk}) as c
      from (select convert_to(to_jsonb(mmgis_q)::text, 'UTF8') as b from (${text}) mmgis_q offset 0) x
      cross join lateral generate_series(1, greatest(octet_length(x.b), 1), ${chunk}) k(k)`,
    values: q.values,
  });
  let parts: Buffer[] = [];
  const out: Row[] = [];
  const finish = () => {
    if (parts.length === 0) return;
    const obj = JSON.parse(Buffer.concat(parts).toString('utf8')) as Row;
    parts = [];
    const row: Row = {};
    for (const c of columns) row[c.name] = fromJson(c.type, obj[c.name]);
    out.push(row);
  };
  let position = 0;
  let n = Math.min(256, Math.max(1, rows));
  try {
    for (;;) {
      let page: Result;
      try {
        page = await run({ text: `fetch forward ${n} from ${name}`, values: [] });
      } catch (e) {
        if (!isTooLarge(e) || n === 1) throw e;
        await run({ text: `move absolute ${position} in ${name}`, values: [] });
        n = Math.max(1, Math.floor(n / 4));
        continue;
      }
      let widest = 0;
      for (const r of page.rows) {
        if (Number(r.k) === 1) finish();
        const c = r.c as Buffer;
        parts.push(c);
        widest = Math.max(widest, c.length);
      }
      position += page.rows.length;
      if (page.rows.length < n) break;
      while (out.length >= rows) yield out.splice(0, rows);
      // base64 adds a third; 100 bytes of record framing per row.
      n = Math.min(MAX_FETCH, Math.max(1, Math.floor(budget / ((widest * 4) / 3 + 100))));
    }
    finish();
    while (out.length) yield out.splice(0, rows);
  } finally {
    await run({ text: `close ${name}`, values: [] }).catch(() => {});
  }
}

/** `fetchInBatches` in a transaction of its own, committed at the end, rolled back when left early. */
export async function* fetchInOwnTransaction(
  api: DataApiClient,
  q: Compiled,
  rows: number,
): AsyncGenerator<Row[]> {
  const id = await api.begin();
  let done = false;
  try {
    yield* fetchInBatches((c) => api.execute(c, id), q, rows, api.config);
    done = true;
  } finally {
    if (done) await api.commit(id);
    else await api.rollback(id).catch(() => {});
  }
}
