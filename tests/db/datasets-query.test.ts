import { describe, expect, it } from 'vitest';
import { runQueries } from '#lib/datasets/query.ts';
import { writeDataset } from '#lib/datasets/store.ts';
import { getDb, type Queryable } from '#lib/db/index.ts';
import { uniqueName } from '../helpers.ts';

/** The real connection, counting the statements sent through it. */
function counting(): { sql: Queryable; statements: () => number } {
  const real = getDb().sql as unknown as ((...a: unknown[]) => unknown) & { json: (v: unknown) => unknown };
  let n = 0;
  const sql = Object.assign(
    (...args: unknown[]) => {
      n++;
      return real(...args);
    },
    { json: (v: unknown) => real.json(v) },
  );
  return { sql: sql as unknown as Queryable, statements: () => n };
}

describe('datasets get: identical queries', () => {
  it('runs each distinct query once and looks each dataset up once; answers stay in order', async () => {
    const name = uniqueName('dsq');
    await writeDataset(
      getDb(),
      name,
      {
        columns: ['site', 'v'],
        rows: [
          ['A', '1'],
          ['B', '2'],
          ['A', '3'],
        ],
      },
      'replace',
    );
    const { sql, statements } = counting();
    const q = { dataset: name, column: 'site', search: 'A' };
    const answers = await runQueries(sql, [...Array.from({ length: 49 }, () => q), { ...q, search: 'B' }]);
    // One dataset lookup, one query for 'A', one for 'B'.
    expect(statements()).toBe(3);
    expect(answers).toHaveLength(50);
    expect(answers[48].results).toEqual([
      { site: 'A', v: '1' },
      { site: 'A', v: '3' },
    ]);
    expect(answers[49].results).toEqual([{ site: 'B', v: '2' }]);
    // A number and its text are the same query (values are compared as text).
    const again = counting();
    await runQueries(again.sql, [
      { dataset: name, column: 'v', search: 1 },
      { dataset: name, column: 'v', search: '1' },
    ]);
    expect(again.statements()).toBe(2);
  });
});
