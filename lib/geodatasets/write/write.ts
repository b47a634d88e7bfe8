import type { Db, TxSql } from '#lib/db/index.ts';
import { badRequest, HttpError } from '#lib/errors.ts';
import {
  assertDatasetName,
  createDatasetIndexes,
  createDatasetTable,
  type Geodataset,
  safeTable,
  tableNameFor,
  toGeodataset,
} from '../catalog.ts';
import { mergeStats, StatsAccumulator, type StoredStats } from '../fieldStats.ts';
import { type Derive, deriveColumns, splitProps } from './derived.ts';
import { featureSource } from './lazyGeojson.ts';
import { validateFeature } from './validateGeometry.ts';

export { LazyGeojson } from './lazyGeojson.ts';

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
  /** Features per INSERT statement (default 4000). */
  batchSize?: number;
  /** Storage of a newly created table's properties (default jsonb; json only for legacy-data tests). */
  propertiesType?: 'json' | 'jsonb';
  /** Called after each batch is inserted, inside the transaction (tests force failures here). */
  afterBatch?: (batchNumber: number, tx: TxSql) => Promise<void> | void;
}

const DEFAULT_BATCH = 4000;

/**
 * Features arriving one at a time from a streaming parser (lib/uploads: an uploaded file read from S3).
 * Passed as `geojson` to recreate/append, they go through the same validation, derived columns, stats and
 * transaction as a request body; the parser's errors (HttpError 400) roll the write back like any other.
 */
export type FeatureStream = AsyncIterable<unknown>;

function isFeatureStream(x: unknown): x is FeatureStream {
  return typeof (x as FeatureStream)?.[Symbol.asyncIterator] === 'function';
}

/** The features of `geojson`: a stream as is, anything else through `featureSource`. */
function sourceOf(geojson: unknown): Iterable<unknown> | FeatureStream {
  return isFeatureStream(geojson) ? geojson : featureSource(geojson);
}

function optionalProp(v: unknown, field: string): string | null {
  if (v === undefined || v === null || v === '') return null;
  if (typeof v !== 'string') throw badRequest(`'${field}' must be a string of property names.`);
  if (v.length > 1000) throw badRequest(`'${field}' is longer than 1000 characters.`);
  return v;
}

/** Checked copies of the options (strings or null), 400 naming the field otherwise. */
export function normalizeOptions(opts: WriteOptions): Required<WriteOptions> {
  const filename = optionalProp(opts.filename, 'filename');
  return {
    name: assertDatasetName(opts.name, 'name'),
    startProp: optionalProp(opts.startProp, 'startProp'),
    endProp: optionalProp(opts.endProp, 'endProp'),
    groupIdProp: optionalProp(opts.groupIdProp, 'groupIdProp'),
    featureIdProp: optionalProp(opts.featureIdProp, 'featureIdProp'),
    filename,
  };
}

function deriveOf(o: Required<WriteOptions>): Derive {
  return {
    start: o.startProp,
    end: o.endProp,
    group: splitProps(o.groupIdProp),
    feature: splitProps(o.featureIdProp),
  };
}

/**
 * One INSERT of a batch: rows are one JSON parameter read by `json_to_recordset`. Points come as x/y(/z)
 * numbers (ST_MakePoint is much cheaper than parsing GeoJSON); other geometries as GeoJSON.
 */
function insertSql(table: string, propertiesType: 'json' | 'jsonb'): string {
  const t = safeTable(table);
  // jsonb tables read the batch as jsonb (properties parsed once, not twice); json tables keep the
  // properties' text as sent.
  const j = propertiesType === 'json' ? 'json' : 'jsonb';
  return `insert into ${t} (geom, properties, start_time, end_time, group_id, feature_id)
    select case when r.x is null then ST_SetSRID(ST_GeomFromGeoJSON(r.g::text), 4326)
                when r.z is null then ST_SetSRID(ST_MakePoint(r.x, r.y), 4326)
                else ST_SetSRID(ST_MakePoint(r.x, r.y, r.z), 4326) end,
           coalesce(r.p, '{}'), r.s, r.e, r.gi, r.fi
    from ${j}_to_recordset($1::${j})
      as r(x float8, y float8, z float8, g ${j}, p ${j}, s timestamptz, e timestamptz, gi text, fi text)`;
}

function toRow(geometry: Record<string, unknown>, properties: Record<string, unknown>) {
  if (geometry.type === 'Point') {
    const c = geometry.coordinates as number[];
    return c.length > 2 ? { x: c[0], y: c[1], z: c[2], p: properties } : { x: c[0], y: c[1], p: properties };
  }
  return { g: geometry, p: properties };
}

/** Database errors that mean "this input cannot be stored" (bad text in JSON, geometry PostGIS refuses). */
function isInputError(e: unknown): boolean {
  const code = (e as { code?: string })?.code ?? '';
  return code.startsWith('22') || code === 'XX000';
}

/**
 * Validates, derives and inserts every feature of `source` into `table` in batches of `json_to_recordset`
 * rows, accumulating field statistics in the same pass. While one batch is in the database the next one
 * is parsed. Throws 400 naming the feature index on the first invalid feature.
 */
async function insertFeatures(
  tx: TxSql,
  table: string,
  propertiesType: 'json' | 'jsonb',
  source: Iterable<unknown> | FeatureStream,
  derive: Derive,
  stats: StatsAccumulator | null,
  tuning: WriteTuning,
): Promise<number> {
  const size = Math.max(1, tuning.batchSize ?? DEFAULT_BATCH);
  // Small first batches start the database early; sizes then double up to `size`.
  let limit = Math.min(size, 500);
  const text = insertSql(table, propertiesType);
  let batch: Record<string, unknown>[] = [];
  let index = 0;
  let batchNo = 0;
  let pending = null as Promise<void> | null; // (assigned in `cut`: no narrowing to null)

  const flush = (rows: Record<string, unknown>[], first: number): Promise<void> => {
    const n = ++batchNo;
    const p = tx
      .unsafe(text, [rows as any])
      .then(() => undefined)
      .catch((e) => {
        if (isInputError(e)) {
          throw badRequest(
            `Features ${first}-${first + rows.length - 1}: the database refused them (${(e as Error).message}).`,
          );
        }
        throw e;
      })
      .then(() => tuning.afterBatch?.(n, tx));
    p.catch(() => {}); // observed when awaited; avoids an unhandled rejection if parsing fails first
    return p;
  };

  /** Validates and derives one feature into the batch; true when the batch is full. */
  const take = (raw: unknown): boolean => {
    const { geometry, properties } = validateFeature(raw, index);
    stats?.add(properties);
    const row: Record<string, unknown> = toRow(geometry, properties);
    deriveColumns(properties, derive, row);
    batch.push(row);
    index++;
    return batch.length >= limit;
  };
  const cut = async () => {
    limit = Math.min(size, limit * 2);
    if (pending) await pending;
    pending = flush(batch, index - batch.length);
    batch = [];
  };

  try {
    if (isFeatureStream(source)) {
      for await (const raw of source) if (take(raw)) await cut();
    } else {
      for (const raw of source) if (take(raw)) await cut();
    }
    if (pending) await pending;
    pending = null;
    if (batch.length) await flush(batch, index - batch.length);
  } finally {
    // Let the statement in flight finish before the transaction rolls back.
    if (pending) await pending.catch(() => {});
  }
  return index;
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
  source: Iterable<unknown> | FeatureStream,
  o: Required<WriteOptions>,
  tuning: WriteTuning,
): Promise<Geodataset | WriteResult> {
  const ds = await lockDataset(tx, o.name);
  if (ds) return ds;
  const r = await reserveDataset(tx, o.name);
  if (!r.created) return r.ds;
  const { added } = await writeNewTable(tx, r.id, r.table, source, o, tuning);
  return { name: o.name, num_features: added, added };
}

/** Builds a new table for `name` with all features and stats, and points the (locked) catalog row at it. */
async function writeNewTable(
  tx: TxSql,
  id: number,
  table: string,
  source: Iterable<unknown> | FeatureStream,
  o: Required<WriteOptions>,
  tuning: WriteTuning,
): Promise<{ added: number; stats: StoredStats }> {
  const propertiesType = tuning.propertiesType ?? 'jsonb';
  await createDatasetTable(tx, table, propertiesType);
  const acc = new StatsAccumulator();
  const added = await insertFeatures(tx, table, propertiesType, source, deriveOf(o), acc, tuning);
  await createDatasetIndexes(tx, table);
  await tx.unsafe(`analyze ${safeTable(table)}`);
  const stats = acc.toStored();
  await tx`
    update geodatasets set
      table_name = ${table}, properties_type = ${propertiesType}, filename = ${o.filename},
      num_features = ${added}, start_prop = ${o.startProp}, end_prop = ${o.endProp},
      group_id_prop = ${o.groupIdProp}, feature_id_prop = ${o.featureIdProp},
      field_stats = ${tx.json(stats as any)}, updated_at = now()
    where id = ${id}`;
  return { added, stats };
}

/**
 * Creates the geodataset `opts.name`, or replaces all of its features, atomically: the rows go into a
 * fresh table `gd_<id>_<generation>` (indexed, analyzed), then the old table is dropped and the new one
 * takes its name, and the catalog row is updated, all in one transaction. Readers see the old data
 * until commit; any invalid feature or error leaves everything as it was. `geojson` is a FeatureCollection or Feature, as an object or JSON text,
 * or a `FeatureStream` of features.
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
  return db.transaction(async (tx) => {
    const found = await lockOrCreate(tx, source, o, tuning);
    if ('added' in found) return found;
    const ds = found;
    const table = tableNameFor(ds.id, ds.version + 1);
    const { added } = await writeNewTable(tx, ds.id, table, source, o, tuning);
    // The swap: the new table takes the old one's name, so a reader that looked the name up before the
    // commit (and waits on the drop's lock) opens the new rows after it instead of a dropped relation.
    const old = safeTable(ds.table);
    await tx.unsafe(`drop table if exists ${old}`);
    await tx.unsafe(`alter table ${safeTable(table)} rename to ${old}`);
    await tx`update geodatasets set table_name = ${old}, version = version + 1 where id = ${ds.id}`;
    return { name: o.name, num_features: added, added };
  });
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
  return db.transaction(async (tx) => {
    const found = await lockOrCreate(tx, source, o, tuning);
    if ('added' in found) return found;
    const ds = found;
    const acc = ds.fieldStats ? new StatsAccumulator() : null;
    const added = await insertFeatures(tx, ds.table, ds.propertiesType, source, deriveOf(o), acc, tuning);
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
}
