import { announceDataChange } from '#lib/configure/liveData.ts';
import type { Db, TxSql } from '#lib/db/index.ts';
import { HttpError } from '#lib/errors.ts';
import {
  createDatasetIndexes,
  createDatasetTable,
  type Geodataset,
  safeTable,
  tableNameFor,
  toGeodataset,
} from '../catalog.ts';
import { highestId, PropertyTypeCounts, storeExtents } from '../extents.ts';
import { mergeStats, StatsAccumulator, type StoredStats } from '../fieldStats.ts';
import { createRankLevels, dropRankLevels, renameRankLevels } from '../rank.ts';
import {
  deriveOf,
  insertFeatures,
  normalizeOptions,
  type StreamedFeatures,
  sourceOf,
} from './insertFeatures.ts';

/** Names of the properties the derived columns come from (docs/contract.md#4-geodatasets-api), and the source filename. */
export interface WriteOptions {
  name: string;
  startProp?: string | null;
  endProp?: string | null;
  groupIdProp?: string | null;
  featureIdProp?: string | null;
  filename?: string | null;
}

export interface WriteResult {
  name: string;
  num_features: number;
  added: number;
}

/** Knobs for benches and tests; handlers use the defaults. */
export interface WriteTuning {
  /** Features per INSERT statement (default 4000), and points per COPY (default 100,000). */
  batchSize?: number;
  /** Storage of a newly created table's properties (default jsonb; json only for legacy-data tests). */
  propertiesType?: 'json' | 'jsonb';
  /** Point batches by COPY (default: `Db.copyIn`); false keeps every batch an INSERT (tests compare both). */
  copy?: boolean;
  /** Called after each batch is inserted, inside the transaction (tests force failures here). */
  afterBatch?: (batchNumber: number, tx: TxSql) => Promise<void> | void;
}

/** The catalog row of `name`, locked until the end of the transaction (serializes writers). */
async function lockDataset(tx: TxSql, name: string): Promise<Geodataset | undefined> {
  const [row] = await tx`select * from geodatasets where name = ${name} for update`;
  return row ? toGeodataset(row) : undefined;
}

/**
 * Reserves a catalog row for a new dataset (num_features 0, invisible to others until commit). When a
 * concurrent writer created the name first, waits for it and returns its locked row instead.
 */
async function reserveDataset(
  tx: TxSql,
  name: string,
): Promise<{ created: true; id: number; table: string } | { created: false; ds: Geodataset }> {
  const [{ id }] = await tx`select nextval(pg_get_serial_sequence('geodatasets', 'id')) as id`;
  const table = tableNameFor(Number(id), 1);
  const rows = await tx`
    insert into geodatasets (id, name, table_name, version)
    values (${id}, ${name}, ${table}, 1)
    on conflict (name) do nothing
    returning id`;
  if (rows.length) return { created: true, id: Number(id), table };
  const ds = await lockDataset(tx, name);
  if (!ds) throw new HttpError(409, `The geodataset '${name}' was removed concurrently; retry.`);
  return { created: false, ds };
}

/**
 * The locked catalog row of `o.name`; or, when no such dataset exists, creates it with all of `source`
 * (field_stats included) and returns the write's result.
 */
async function lockOrCreate(
  tx: TxSql,
  source: Iterable<unknown> | StreamedFeatures,
  o: Required<WriteOptions>,
  tuning: WriteTuning,
  copy: boolean,
): Promise<Geodataset | WriteResult> {
  const ds = await lockDataset(tx, o.name);
  if (ds) return ds;
  const r = await reserveDataset(tx, o.name);
  if (!r.created) return r.ds;
  const { added } = await writeNewTable(tx, r.id, r.table, source, o, tuning, copy);
  return { name: o.name, num_features: added, added };
}

/** Builds a new table for `name` with all features and stats, and points the (locked) catalog row at it. */
async function writeNewTable(
  tx: TxSql,
  id: number,
  table: string,
  source: Iterable<unknown> | StreamedFeatures,
  o: Required<WriteOptions>,
  tuning: WriteTuning,
  copy: boolean,
): Promise<{ added: number; stats: StoredStats }> {
  const propertiesType = tuning.propertiesType ?? 'jsonb';
  await createDatasetTable(tx, table, propertiesType);
  const acc = new StatsAccumulator();
  const types = new PropertyTypeCounts();
  const derive = deriveOf(o);
  const added = await insertFeatures(tx, table, propertiesType, source, derive, acc, types, tuning, copy);
  await createDatasetIndexes(tx, table);
  await createRankLevels(tx, table, added);
  await tx.unsafe(`analyze ${safeTable(table)}`);
  const stats = acc.toStored();
  await tx`
    update geodatasets set
      table_name = ${table}, properties_type = ${propertiesType}, filename = ${o.filename},
      num_features = ${added}, start_prop = ${o.startProp}, end_prop = ${o.endProp},
      group_id_prop = ${o.groupIdProp}, feature_id_prop = ${o.featureIdProp},
      field_stats = ${tx.json(stats as any)}, updated_at = now()
    where id = ${id}`;
  await storeExtents(tx, { id, table }, types);
  return { added, stats };
}

/**
 * Creates the geodataset `opts.name`, or replaces all of its features, atomically: the rows go into a
 * fresh table `gd_<id>_<generation>` (indexed, analyzed), then the old table is dropped and the new one
 * takes its name, and the catalog row is updated, all in one transaction. Readers see the old data
 * until commit; any invalid feature or error leaves everything as it was. `geojson` is a FeatureCollection or Feature, as an object or JSON text,
 * or `StreamedFeatures`.
 *
 * @example await recreateGeodataset(db, fc, { name: 'rovers', startProp: 'time', groupIdProp: 'sol,site' })
 */
export async function recreateGeodataset(
  db: Db,
  geojson: unknown,
  opts: WriteOptions,
  tuning: WriteTuning = {},
): Promise<WriteResult> {
  const o = normalizeOptions(opts);
  const source = sourceOf(geojson);
  const copy = tuning.copy ?? db.copyIn === true;
  const result = await db.transaction(async (tx) => {
    const found = await lockOrCreate(tx, source, o, tuning, copy);
    if ('added' in found) return found;
    const ds = found;
    const table = tableNameFor(ds.id, ds.version + 1);
    const { added } = await writeNewTable(tx, ds.id, table, source, o, tuning, copy);
    // The swap: the new table takes the old one's name, so a reader that looked the name up before the
    // commit (and waits on the drop's lock) opens the new rows after it instead of a dropped relation.
    const old = safeTable(ds.table);
    await tx.unsafe(`drop table if exists ${old}`);
    await dropRankLevels(tx, ds.table);
    await tx.unsafe(`alter table ${safeTable(table)} rename to ${old}`);
    await renameRankLevels(tx, table, ds.table);
    await tx`update geodatasets set table_name = ${old}, version = version + 1 where id = ${ds.id}`;
    return { name: o.name, num_features: added, added };
  });
  await announceDataChange(db, o.name);
  return result;
}

/**
 * Appends features to `opts.name` in one transaction, or creates it (with field_stats) when it does not
 * exist. The request's own props set the derived columns of its rows; the props stored at creation stay in
 * the entry (docs/contract.md#5-edge-cases-decided); `filename` replaces the stored one when given. field_stats, when the
 * dataset has them, are widened in the same transaction under the catalog row lock, so concurrent appends
 * lose no update.
 */
export async function appendGeodataset(
  db: Db,
  geojson: unknown,
  opts: WriteOptions,
  tuning: WriteTuning = {},
): Promise<WriteResult> {
  const o = normalizeOptions(opts);
  const source = sourceOf(geojson);
  const copy = tuning.copy ?? db.copyIn === true;
  const result = await db.transaction(async (tx) => {
    const found = await lockOrCreate(tx, source, o, tuning, copy);
    if ('added' in found) return found;
    const ds = found;
    const acc = ds.fieldStats ? new StatsAccumulator() : null;
    const types = new PropertyTypeCounts();
    const before = await highestId(tx, ds);
    const derive = deriveOf(o);
    const added = await insertFeatures(
      tx,
      ds.table,
      ds.propertiesType,
      source,
      derive,
      acc,
      types,
      tuning,
      copy,
    );
    await storeExtents(tx, ds, types, before, true);
    await createRankLevels(tx, ds.table, ds.numFeatures + added);
    const stats = ds.fieldStats && acc ? mergeStats(ds.fieldStats, acc.toStored()) : null;
    const [row] = await tx`
      update geodatasets set
        num_features = num_features + ${added},
        field_stats = ${stats ? tx.json(stats as any) : null},
        filename = coalesce(${o.filename}, filename),
        version = version + 1, updated_at = now()
      where id = ${ds.id}
      returning num_features`;
    return { name: o.name, num_features: Number(row.num_features), added };
  });
  await announceDataChange(db, o.name);
  return result;
}
