import type { DataApiClient, Result } from './client.ts';
import type { Compiled } from './compile.ts';
import { fromJson } from './records.ts';

/** Only reads are re-run through the oversize path: a statement that writes is never executed twice. */
export { isRead } from './retries.ts';

/**
 * The oversize path (docs/deploying.md): a read whose answer is over the Data API's 1 MiB per response or
 * 64 KB per row is run again into a temporary table inside a transaction, each row serialized there as
 * JSON bytes (`to_jsonb`); the column types come from the same query with LIMIT 0. The bytes are fetched as byte chunks of half the row limit (32 KiB; base64 adds a third), as many
 * per call as fit in 70 % of the response limit (16), then decoded with the column types.
 * It costs one more run of the query and a call per ~512 KiB, but no result is too large.
 */

export function chunking(maxRowBytes = 64 * 1024, maxResponseBytes = 1024 * 1024) {
  const chunk = Math.floor(maxRowBytes / 2);
  return { chunk, perCall: Math.max(1, Math.floor((maxResponseBytes * 0.7) / ((chunk * 4) / 3))) };
}

let counter = 0;

export async function readOversize(api: DataApiClient, q: Compiled, tx: string): Promise<Result> {
  const { chunk: CHUNK_BYTES, perCall: CHUNKS_PER_CALL } = chunking(
    api.config.maxRowBytes,
    api.config.maxResponseBytes,
  );
  const n = `mmgis_oversize_${process.pid}_${++counter}`;
  const text = q.text.trim().replace(/;\s*$/, '');
  try {
    // The columns and their types: LIMIT 0 plans the query without running it.
    const shape = await api.execute(
      { text: `select * from (${text}) mmgis_q limit 0`, values: q.values },
      tx,
    );
    const columns = shape.columns;
    // Each row as JSON bytes, stored uncompressed so a chunk reads only its own part of the value.
    await api.execute(
      { text: `create temp table ${n} (mmgis_rn bigint, b bytea) on commit drop`, values: [] },
      tx,
    );
    await api.execute({ text: `alter table ${n} alter column b set storage external`, values: [] }, tx);
    await api.execute(
      {
        text: `insert into ${n} select row_number() over (), convert_to(to_jsonb(mmgis_q)::text, 'UTF8') from (${text}) mmgis_q`,
        values: q.values,
      },
      tx,
    );
    const parts = new Map<number, Buffer[]>();
    let last = [0, 0];
    for (;;) {
      const page = await api.execute(
        {
          text: `select x.r, x.k, substring(s.b from x.k::int for ${CHUNK_BYTES}) as c
            from (select s.mmgis_rn as r, k.k as k
                  from ${n} s, generate_series(1, greatest(octet_length(s.b), 1), ${CHUNK_BYTES}) k(k)
                  where (s.mmgis_rn, k.k) > (:p1, :p2) order by 1, 2 limit ${CHUNKS_PER_CALL}) x
            join ${n} s on s.mmgis_rn = x.r order by 1, 2`,
          values: last,
        },
        tx,
      );
      for (const row of page.rows) {
        const r = Number(row.r);
        if (!parts.has(r)) parts.set(r, []);
        parts.get(r)!.push(row.c as Buffer);
        last = [r, Number(row.k)];
      }
      if (page.rows.length < CHUNKS_PER_CALL) break;
    }
    const rows = [...parts.keys()]
      .sort((a, b) => a - b)
      .map((r) => {
        const obj = JSON.parse(Buffer.concat(parts.get(r)!).toString('utf8')) as Record<string, unknown>;
        const row: Record<string, unknown> = {};
        for (const c of columns) row[c.name] = fromJson(c.type, obj[c.name]);
        return row;
      });
    return { rows, columns, updated: 0 };
  } finally {
    await api.execute({ text: `drop table if exists ${n}`, values: [] }, tx).catch(() => {});
  }
}
