/**
 * The references of the ingest bench (`bench/ingest.ts`): what the database alone takes for the same
 * rows, a raw COPY into an indexed table and an INSERT ... SELECT of stored rows.
 */
import type { Db } from '../lib/db/index.ts';
import { createDatasetIndexes, createDatasetTable, safeTable } from '../lib/geodatasets/catalog.ts';
import { points } from './data.ts';

function copyText(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
}

/** The reference: COPY of the same rows (geometry, properties, start_time, group_id) into an indexed table. */
export async function copyReference(db: Db, count: number): Promise<number> {
  const table = 'gd_0_1';
  await db.sql.unsafe(`drop table if exists ${table}`);
  await createDatasetTable(db.sql, table);
  await createDatasetIndexes(db.sql, table);
  const t0 = performance.now();
  const w = await db.sql
    .unsafe(`copy ${table} (geom, properties, start_time, group_id) from stdin`)
    .writable();
  let buf: string[] = [];
  const flush = () =>
    new Promise<void>((ok, fail) => {
      const chunk = buf.join('');
      buf = [];
      w.write(chunk, (e) => (e ? fail(e) : ok()));
    });
  for (const f of points(count, 1)) {
    const [x, y] = f.geometry.coordinates as number[];
    const p = f.properties;
    buf.push(`SRID=4326;POINT(${x} ${y})\t${copyText(JSON.stringify(p))}\t${p.t}\t${copyText(p.g)}\n`);
    if (buf.length === 5000) await flush();
  }
  await flush();
  await new Promise<void>((ok, fail) => {
    w.on('finish', ok);
    w.on('error', fail);
    w.end();
  });
  const ms = performance.now() - t0;
  await db.sql.unsafe(`drop table ${table}`);
  return ms;
}

/** The database's own share of an append: 10,000 stored rows copied by INSERT ... SELECT (rolled back). */
export async function appendReference(db: Db, name: string, runs: number, rows: number): Promise<number> {
  const [{ table_name: table }] = await db.sql`select table_name from geodatasets where name = ${name}`;
  const t = safeTable(table as string);
  let best = Infinity;
  for (let i = 0; i < runs; i++) {
    await db
      .transaction(async (tx) => {
        const t0 = performance.now();
        await tx.unsafe(
          `insert into ${t} (geom, properties, start_time, end_time, group_id, feature_id)
           select geom, properties, start_time, end_time, group_id, feature_id from ${t} where id <= ${rows}`,
        );
        best = Math.min(best, performance.now() - t0);
        throw new Error('rollback');
      })
      .catch(() => {});
  }
  return best;
}
