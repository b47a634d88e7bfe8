import type { DataApiClient, Result } from './client.ts';
import type { Compiled } from './compile.ts';
import { fromJson } from './records.ts';

/**
 * The oversize path (docs/deploying.md): a read whose answer is over the Data API's 1 MiB per response or
 * 64 KB per row is run again into a temporary table inside a transaction; each row is serialized there
 * (`to_jsonb`) and fetched as byte chunks of half the row limit (32 KiB; base64 adds a third), as many
 * per call as fit in 70 % of the response limit (16), then decoded with the column types.
 * It costs one more run of the query and a call per ~512 KiB, but no result is too large.
 */

export function chunking(maxRowBytes = 64 * 1024, maxResponseBytes = 1024 * 1024) {
  const chunk = Math.floor(maxRowBytes / 2);
  return { chunk, perCall: Math.max(1, Math.floor((maxResponseBytes * 0.7) / ((chunk * 4) / 3))) };
}

/** Only reads are re-run: a statement that writes is never executed twice. */
export function isRead(text: string): boolean {
  const t = text.trim().toLowerCase();
  return /^(select|with|values|table)\b|^\(/.test(t) && !/\b(insert|update|delete|merge)\s/.test(t);
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
    await api.execute(
      {
        text: `create temp table ${n} on commit drop as select row_number() over () as mmgis_rn, mmgis_q.* from (${text}) mmgis_q`,
        values: q.values,
      },
      tx,
    );
    const shape = await api.execute({ text: `select * from ${n} limit 0`, values: [] }, tx);
    const columns = shape.columns.filter((c) => c.name !== 'mmgis_rn');
    await api.execute(
      {
        text: `create temp table ${n}_b on commit drop as
          select mmgis_rn, convert_to((to_jsonb(mmgis_row) - 'mmgis_rn')::text, 'UTF8') as b from ${n} mmgis_row`,
        values: [],
      },
      tx,
    );
    const parts = new Map<number, Buffer[]>();
    let last = [0, 0];
    for (;;) {
      const page = await api.execute(
        {
          text: `select s.mmgis_rn as r, k.k as k, substring(s.b from k.k::int for ${CHUNK_BYTES}) as c
            from ${n}_b s, generate_series(1, greatest(octet_length(s.b), 1), ${CHUNK_BYTES}) k(k)
            where (s.mmgis_rn, k.k) > (:p1, :p2) order by 1, 2 limit ${CHUNKS_PER_CALL}`,
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
    await api.execute({ text: `drop table if exists ${n}_b, ${n}`, values: [] }, tx).catch(() => {});
  }
}
