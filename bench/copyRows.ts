/**
 * The benches' COPY references (bench/ingestReference.ts, bench/scaleUpload.ts): COPY FROM STDIN of text
 * lines, written 5,000 lines at a time.
 */
import type { Db } from '../lib/db/index.ts';

export { copyText } from '../lib/geodatasets/write/insertFeatures.ts';

/** Runs `statement` (a `copy … from stdin`) with `lines`, each a complete line of COPY text. */
export async function copyRows(db: Db, statement: string, lines: Iterable<string>): Promise<void> {
  const w = await db.sql.unsafe(statement).writable();
  let buf: string[] = [];
  const flush = () =>
    new Promise<void>((ok, fail) => {
      const chunk = buf.join('');
      buf = [];
      w.write(chunk, (e) => (e ? fail(e) : ok()));
    });
  for (const line of lines) {
    buf.push(line);
    if (buf.length === 5000) await flush();
  }
  await flush();
  await new Promise<void>((ok, fail) => {
    w.on('finish', ok);
    w.on('error', fail);
    w.end();
  });
}
