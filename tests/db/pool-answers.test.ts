import { afterAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '#lib/db/index.ts';

/**
 * Every query gets its own answer, even when the pool is saturated and some queries fail while they are
 * being built (docs/connections.md, "A query that fails before it is sent"). postgres.js pipelines a query
 * behind the busy one on a connection; a value whose serialization throws there (an invalid Date, an
 * undefined value) once rejected the busy query instead and left the failed one queued, so every later
 * answer on that connection went to the query before it.
 */

const QUERIES = 1_200;
/**
 * A query still unanswered this long after the burst was sent counts as lost (the driver's bug left some
 * unanswered forever). Generous: the Data API stand-in answers 1,200 calls over HTTP, slowly on a busy machine.
 */
const LOST_AFTER_MS = 120_000;
const dbs: Db[] = [];

function within<T>(p: Promise<T>, ms: number): Promise<T | 'lost'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'lost'>((resolve) => {
    timer = setTimeout(() => resolve('lost'), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}
afterAll(() => Promise.all(dbs.map((db) => db.end())));

/** A query whose building throws inside the driver, after the pool handed it a connection. */
function poison(db: Db, i: number): Promise<unknown> {
  switch (i % 3) {
    case 0:
      return db.sql`select ${new Date(Number.NaN)}::timestamptz as t`;
    case 1:
      return db.sql`select ${undefined as unknown as string}::text as t`;
    default:
      return db.sql`select ${new Date(8.64e15 + 1)}::timestamptz as t, ${i}::int as n`;
  }
}

describe('pooled connections under failing queries', () => {
  it(`answers ${QUERIES} concurrent queries each with its own answer while some fail to build`, async () => {
    const db = createDb({ max: 2 });
    dbs.push(db);
    let right = 0;
    let wrong = 0;
    let poisoned = 0;
    let lost = 0;
    const runs = Array.from({ length: QUERIES }, async (_, i) => {
      if (i % 10 === 3) {
        const outcome = await within(
          poison(db, i).then(
            () => 'answered',
            () => 'refused',
          ),
          LOST_AFTER_MS,
        );
        if (outcome === 'refused') poisoned++;
        else if (outcome === 'lost') lost++;
        else wrong++;
        return;
      }
      const rows = await within(
        db.sql`select ${i}::int as n, ${`answer ${i}`}::text as s`.catch(() => []),
        LOST_AFTER_MS,
      );
      if (rows === 'lost') lost++;
      else if (rows[0]?.n === i && rows[0]?.s === `answer ${i}`) right++;
      else wrong++;
    });
    await Promise.all(runs);
    expect({ right, wrong, lost, poisoned }).toEqual({
      right: QUERIES - QUERIES / 10,
      wrong: 0,
      lost: 0,
      poisoned: QUERIES / 10,
    });
    // The connections stay in step afterwards: sequential and concurrent queries answer themselves.
    for (let i = 0; i < 20; i++) expect((await db.sql`select ${i}::int as n`)[0].n).toBe(i);
    const after = await Promise.all(
      Array.from({ length: 200 }, (_, i) => db.sql`select ${i}::int as n`.then((r) => r[0].n)),
    );
    expect(after).toEqual(Array.from({ length: 200 }, (_, i) => i));
  }, 240_000);
});
