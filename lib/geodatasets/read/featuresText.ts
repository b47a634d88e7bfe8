import type postgres from 'postgres';
import { withReadErrors } from './filters.ts';

/** The JSON text around the features array: `<before>[...]<after>`. */
export interface Wrap {
  before: string;
  after: string;
}

/**
 * Features read per round trip of the cursor. The function holds one batch at a time (about 250 KB of
 * points; a batch of large polygons more), the database one portal's worth of rows.
 */
export const BATCH_ROWS = 1000;

/**
 * The text `<before>[f1,f2,...]<after>` of a query whose rows carry one feature's JSON text each (`f`),
 * as pieces: the opening, one piece per batch of features, the closing. The rows are read with a cursor
 * (`query.cursor(n)`: a portal read `n` rows at a time with postgres.js, on the server and on the embedded
 * database alike; DECLARE/FETCH in a transaction over the Data API), as the consumer asks for them, so
 * neither the database nor the function ever holds the whole answer. A database refusal of a feature's
 * value is 400, as `withReadErrors` makes it. Leaving early (the consumer fails) closes the cursor.
 */
export async function* featuresText(query: postgres.PendingQuery<any>, wrap: Wrap): AsyncGenerator<string> {
  const batches = query.cursor(BATCH_ROWS)[Symbol.asyncIterator]();
  let first = true;
  let done = false;
  try {
    yield `${wrap.before}[`;
    for (;;) {
      const next = await withReadErrors(() => batches.next());
      if (next.done) break;
      const texts = next.value.map((r) => r.f as string).join(',');
      yield first ? texts : `,${texts}`;
      first = false;
    }
    done = true;
    yield `]${wrap.after}`;
  } finally {
    if (!done) await batches.return?.();
  }
}

/** A text given whole, as a stream of one piece. */
export async function* textOf(text: string): AsyncGenerator<string> {
  yield text;
}

/** The whole text of a stream (lib tests, in-process benches: the answer is held whole). */
export async function collectText(pieces: AsyncIterable<string>): Promise<string> {
  const all: string[] = [];
  for await (const p of pieces) all.push(p);
  return all.join('');
}
