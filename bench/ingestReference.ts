/**
 * The references of the ingest bench (`bench/ingest.ts`): what the database alone takes for the same
 * rows, a raw COPY into an indexed table and an INSERT ... SELECT of stored rows.
 */
import type { Db } from '../lib/db/index.ts';
import { createDatasetIndexes, createDatasetTable, safeTable } from '../lib/geodatasets/catalog.ts';
import { copyRows, copyText } from './copyRows.ts';
import { points } from './data.ts';

/** The reference: COPY of the same rows (geometry, properties, start_time, group_id) into an indexed table. */
export async function copyReference(db: Db, count: number): Promise<number> {
  const table = 'gd_0_1';
  await db.sql.unsafe(`drop table if exists ${table}`);
  await createDatasetTable(db.sql, table);
  await createDatasetIndexes(db.sql, table);
  const t0 = performance.now();
  const lines = function* () {
    for (const f of points(count, 1)) {
      const [x, y] = f.geometry.coordinates as number[];
      const p = f.properties;
      yield `SRID=4326;POINT(${x} ${y})\t${copyText(JSON.stringify(p))}\t${p.t}\t${copyText(p.g)}\n`;
    }
  };
  await copyRows(db, `copy ${table} (geom, properties, start_time, group_id) from stdin`, lines());
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
