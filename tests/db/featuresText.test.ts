import { describe, expect, it } from 'vitest';
import { getDb } from '#lib/db/index.ts';
import { HttpError } from '#lib/errors.ts';
import { BATCH_ROWS, collectText, featuresText } from '#lib/geodatasets/read/featuresText.ts';

/**
 * The cursor read of lib/geodatasets/read/featuresText.ts on the test database (server, embedded, or the
 * Data API stand-in): the pieces join to exactly the text one `string_agg` of the same rows gives.
 */

const db = getDb();
const wrap = { before: '{"status":"success","body":', after: '}' };
const rows = (n: number) =>
  db.sql`select '{"n":' || g || ',"s":"' || repeat('火', g % 5) || '"}' as f
    from generate_series(1, ${n}::int) g order by g`;

describe('featuresText', () => {
  it('joins several batches to exactly the string_agg text, and an empty read to []', async () => {
    const n = 2 * BATCH_ROWS + 500;
    const pieces: string[] = [];
    for await (const p of featuresText(rows(n), wrap)) pieces.push(p);
    expect(pieces.length).toBe(3 + 2);
    const [agg] = await db.sql`select string_agg(r.f, ',') as t from (${rows(n)}) r`;
    expect(pieces.join('')).toBe(`${wrap.before}[${agg.t}]${wrap.after}`);
    expect(JSON.parse(pieces.join('')).body).toHaveLength(n);
    expect(await collectText(featuresText(rows(0), wrap))).toBe(`${wrap.before}[]${wrap.after}`);
  });

  it('makes a refusal of a feature value half-way a 400, and leaves the connection usable', async () => {
    const failing = db.sql`select case when g < ${BATCH_ROWS + 10}::int then g::text else (1 / (g - g))::text end as f
      from generate_series(1, ${3 * BATCH_ROWS}::int) g order by g`;
    const err = await collectText(featuresText(failing, wrap)).catch((e) => e);
    expect(err).toBeInstanceOf(HttpError);
    expect(err.statusCode).toBe(400);
    expect([...(await db.sql`select 1 as ok`)]).toEqual([{ ok: 1 }]);
  });

  it('closes the cursor when the consumer leaves early', async () => {
    for await (const p of featuresText(rows(3 * BATCH_ROWS), wrap)) {
      if (p.startsWith('{"n":') || p.startsWith(',')) break;
    }
    // On the embedded database a portal left open would hold the one session: this would hang.
    expect([...(await db.sql`select 2 as ok`)]).toEqual([{ ok: 2 }]);
  });
});
