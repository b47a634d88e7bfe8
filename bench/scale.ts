/**
 * `npm run bench:scale -- --points=1000000[,4000000]`: a big layer's figures beside their limits, on the
 * PostGIS server (DATABASE_URL, the database is migrated and a `scale_<n>` layer recreated in it):
 * - seeding: half the points uniform over a continent-size box, half in Gaussian clusters, inserted by
 *   SQL into a layer made by `recreateGeodataset` (the bench measures reads; bench/upload.ts the ingest);
 *   then the ingest's own end steps, timed: the indexes, the rank levels (the overview and its indexes),
 *   the extents; the sizes of the table and of its overview;
 * - tiles, SQL alone (`readTile`: its probes and its statement), the densest and a typical tile of each
 *   zoom, median of 3, with bytes, against 300 ms / 50 ms / 500 KB (docs/tiles.md);
 * - the whole layer as GeoJSON (`featureChunks`: short keyset statements), its time, statements and the
 *   slowest statement, against the statement timeout;
 * - the last page by `offset` and by `after`.
 * Prints the load average beside the figures. `--reuse` keeps a layer already seeded; `--zooms=0,3,...`.
 */
import { loadavg } from 'node:os';
import { closeDb, createDb, type Db } from '../lib/db/index.ts';
import { type Geodataset, requireDataset, sqlTable } from '../lib/geodatasets/catalog.ts';
import { updateExtents } from '../lib/geodatasets/extents.ts';
import { createRankLevels, overviewName } from '../lib/geodatasets/rank.ts';
import { parseReadFilters } from '../lib/geodatasets/read/filters.ts';
import { featureChunks, readFeatureCollection } from '../lib/geodatasets/read/geojson.ts';
import { readTile } from '../lib/geodatasets/tiles/readTile.ts';
import { recreateGeodataset } from '../lib/geodatasets/write/write.ts';
import { prepareDatabase } from '../scripts/devServer.ts';

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const SIZES = (arg('points') ?? '1000000').split(',').map(Number);
const ZOOMS = (arg('zooms') ?? '0,3,6,9,12').split(',').map(Number);
const URL = process.env.DATABASE_URL;
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

async function timed<T>(run: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await run();
  return { ms: performance.now() - t0, value };
}

async function median<T>(n: number, run: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const runs: { ms: number; value: T }[] = [];
  for (let i = 0; i < n; i++) runs.push(await timed(run));
  runs.sort((a, b) => a.ms - b.ms);
  return runs[Math.floor(n / 2)];
}

/** A layer of n points made by SQL, then the ingest's end steps (indexes, rank levels, extents) timed. */
async function seed(db: Db, n: number): Promise<Geodataset> {
  const name = `scale_${n}`;
  const one = { type: 'Feature', geometry: { type: 'Point', coordinates: [0, 0] }, properties: { n: 0 } };
  await recreateGeodataset(db, { type: 'FeatureCollection', features: [one] }, { name });
  const ds = await requireDataset(db.sql, name);
  const t = sqlTable(db.sql, ds);
  await db.sql`truncate ${t}`;
  for (const index of await db.sql`select indexname from pg_indexes where tablename = ${ds.table} and indexname not like '%pkey'`)
    await db.sql`drop index ${db.sql(String(index.indexname))}`;
  const insert = await timed(
    () => db.sql`insert into ${t} (geom, properties)
      select case when i % 2 = 0
          then ST_SetSRID(ST_MakePoint(-125 + random() * 60, 25 + random() * 25), 4326)
          else ST_SetSRID(ST_MakePoint(-120 + (i % 40) * 1.3 + (random() + random() + random() - 1.5) * 0.4,
                                       28 + (i % 13) * 1.5 + (random() + random() + random() - 1.5) * 0.4), 4326) end,
        jsonb_build_object('n', i, 'f', i / 7.0, 's', 'name ' || i, 't', '2024-01-01T00:00:00Z', 'g', 'g' || (i % 1000))
      from generate_series(1, ${n}::int) i`,
  );
  const index = await timed(async () => {
    await db.sql`create index on ${t} using gist (geom)`;
  });
  await db.sql`update geodatasets set num_features = ${n} where id = ${ds.id}`;
  const rank = await timed(() => createRankLevels(db.sql, ds.table, n));
  await db.sql`analyze ${t}`;
  const extents = await timed(() => updateExtents(db.sql, ds));
  const [size] = await db.sql`select pg_total_relation_size(${ds.table}::regclass)::bigint as t,
      coalesce(pg_total_relation_size(to_regclass(${overviewName(ds.table)})), 0)::bigint as o`;
  const mib = (b: unknown) => `${(Number(b) / 2 ** 20).toFixed(0)} MiB`;
  console.log(`seed ${n}: table ${mib(size.t)} with its indexes, overview ${mib(size.o)} with its indexes`);
  console.log(
    `seed ${n}: insert ${(insert.ms / 1000).toFixed(1)} s, geom index ${(index.ms / 1000).toFixed(1)} s, rank levels (overview, its indexes) ${(rank.ms / 1000).toFixed(1)} s, extents ${(extents.ms / 1000).toFixed(1)} s (load ${load()})`,
  );
  return requireDataset(db.sql, name);
}

/** The densest and a typical (median non-empty) tile of zoom z, by counting a 1/64 sample of the points. */
async function tilesOf(db: Db, ds: Geodataset, z: number) {
  const t = sqlTable(db.sql, ds);
  const rows = await db.sql`
    select x, y, count(*)::int as c from (
      select floor((ST_X(geom) + 180) / 360 * 2 ^ ${z}::int)::int as x,
             floor((1 - ln(tan(radians(ST_Y(geom))) + 1 / cos(radians(ST_Y(geom)))) / pi()) / 2 * 2 ^ ${z}::int)::int as y
      from ${t} where ((id * 2654435761::bigint) % 4294967296::bigint) < 67108864::bigint) s
    group by 1, 2 order by 3 desc`;
  const densest = rows[0];
  const typical = rows[Math.floor(rows.length / 2)];
  return { densest: { z, x: densest.x, y: densest.y }, typical: { z, x: typical.x, y: typical.y } };
}

async function main() {
  if (!URL)
    throw new Error('DATABASE_URL names the bench database (e.g. postgres://postgres@127.0.0.1:5432/scale)');
  await prepareDatabase(URL, undefined);
  const db = createDb({ url: URL, max: 2 });
  // Seeding a big layer runs statements longer than the service's timeout; the reads keep it.
  const seedDb = createDb({ url: URL, max: 1, statementTimeoutMs: 0 });
  const timeout = Number(process.env.STATEMENT_TIMEOUT_MS ?? 25000);
  try {
    for (const n of SIZES) {
      const kept = process.argv.includes('--reuse')
        ? await requireDataset(db.sql, `scale_${n}`).catch(() => undefined)
        : undefined;
      const ds = kept?.numFeatures === n ? kept : await seed(seedDb, n);
      const all = parseReadFilters({});
      console.log(`\n${n} points (load ${load()})`);
      console.log('| tile | SQL alone (limit) | bytes (limit) | features |');
      console.log('|---|---|---|---|');
      for (const z of ZOOMS) {
        const { densest, typical } = await tilesOf(db, ds, z);
        for (const [kind, a, limit] of [
          ['densest', densest, 300],
          ['typical', typical, 50],
        ] as const) {
          const r = await median(3, () => readTile(db, ds, a, db.sql`true`));
          console.log(
            `| z${z} ${kind} ${a.z}/${a.x}/${a.y} | ${r.ms.toFixed(0)} ms (${limit}) | ${r.value.bytes} (500000) | ${r.value.n} |`,
          );
        }
      }
      let statements = 0;
      let slowest = 0;
      let bytes = 0;
      let last = performance.now();
      const whole = await timed(async () => {
        for await (const c of featureChunks(db.sql, ds, all, { offset: 0 })) {
          const now = performance.now();
          slowest = Math.max(slowest, now - last);
          last = now;
          statements++;
          bytes += Buffer.byteLength(c.text);
        }
      });
      console.log(
        `whole layer: ${(whole.ms / 1000).toFixed(1)} s, ${(bytes / 2 ** 20).toFixed(0)} MiB in ${statements} statements, slowest ${slowest.toFixed(0)} ms (statement timeout ${timeout} ms) (load ${load()})`,
      );
      const [{ max }] = await db.sql`select max(id)::bigint as max from ${sqlTable(db.sql, ds)}`;
      const byOffset = await median(3, () =>
        readFeatureCollection(db.sql, ds, all, { offset: n - 1000, limit: 1000 }),
      );
      const byKey = await median(3, () =>
        readFeatureCollection(db.sql, ds, all, { offset: 0, after: Number(max) - 1000, limit: 1000 }),
      );
      console.log(
        `last page of 1000: offset ${byOffset.ms.toFixed(0)} ms, after ${byKey.ms.toFixed(0)} ms (load ${load()})`,
      );
    }
  } finally {
    await db.end();
    await seedDb.end();
    await closeDb();
  }
}

await main();
