import { type Fragment, sqlIdentifier } from '#lib/db/fragments.ts';
import type { Queryable } from '#lib/db/index.ts';
import { badRequest, notFound } from '#lib/errors.ts';

/** One row of the `geodatasets` catalog. `table` is ours (derived from the id), never user text. */
export interface Geodataset {
  id: number;
  name: string;
  table: string;
  propertiesType: 'json' | 'jsonb';
  filename: string | null;
  numFeatures: number;
  startProp: string | null;
  endProp: string | null;
  groupIdProp: string | null;
  featureIdProp: string | null;
  fieldStats: Record<string, StoredFieldStats> | null;
  version: number;
  createdAt: string;
  updatedAt: string;
}

/** The members of a field_stats entry that are stored; nullCount, avg and stddev are derived on read. */
export interface StoredFieldStats {
  type: 'number';
  min: number;
  max: number;
  sum: number;
  sumsq: number;
  count: number;
}

const NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** docs/contract.md#4-geodatasets-api: 1–128 letters, digits, `_`, `-`, `.`; anything else is refused, not stripped. */
export function assertDatasetName(name: unknown, field = 'name'): string {
  if (typeof name !== 'string' || !NAME.test(name)) {
    throw badRequest(
      `'${field}' must be 1-128 characters of letters, digits, '_', '-' or '.' (got ${JSON.stringify(name)?.slice(0, 80)}).`,
    );
  }
  return name;
}

/** The per-dataset table name: from the catalog id and a generation number, never from the name. */
export function tableNameFor(id: number, generation: number): string {
  if (!Number.isSafeInteger(id) || !Number.isSafeInteger(generation)) throw new Error('bad table id');
  return `gd_${id}_${generation}`;
}

const TABLE = /^gd_\d+_\d+$/;

/** Guards every identifier we splice into SQL: only names of our own shape pass. */
export function safeTable(table: string): string {
  if (!TABLE.test(table)) throw new Error(`not a geodataset table name: ${table}`);
  return table;
}

/** The dataset's table as a SQL fragment (`from ${sqlTable(sql, ds)} t`), guarded by `safeTable`. */
export function sqlTable(sql: Queryable, ds: Pick<Geodataset, 'table'>): Fragment {
  return sqlIdentifier(sql, safeTable(ds.table));
}

export function toGeodataset(row: Record<string, any>): Geodataset {
  return {
    id: Number(row.id),
    name: row.name,
    table: safeTable(row.table_name),
    propertiesType: row.properties_type,
    filename: row.filename,
    numFeatures: Number(row.num_features),
    startProp: row.start_prop,
    endProp: row.end_prop,
    groupIdProp: row.group_id_prop,
    featureIdProp: row.feature_id_prop,
    fieldStats: row.field_stats ?? null,
    version: Number(row.version),
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}

export async function findDataset(sql: Queryable, name: string): Promise<Geodataset | undefined> {
  const [row] = await sql`select * from geodatasets where name = ${name}`;
  return row ? toGeodataset(row) : undefined;
}

/** The dataset named `name`, or 404 naming it. */
export async function requireDataset(sql: Queryable, name: string): Promise<Geodataset> {
  const ds = await findDataset(sql, assertDatasetName(name, 'layer'));
  if (!ds) throw notFound(`Geodataset '${name}' not found.`);
  return ds;
}

export async function listDatasets(sql: Queryable): Promise<Geodataset[]> {
  return (await sql`select * from geodatasets order by name collate "C"`).map(toGeodataset);
}

/**
 * Creates an empty per-dataset table. Indexes come separately (`createDatasetIndexes`) so a bulk load can
 * build them once at the end.
 */
export async function createDatasetTable(
  sql: Queryable,
  table: string,
  propertiesType: 'json' | 'jsonb' = 'jsonb',
): Promise<void> {
  const t = safeTable(table);
  const props = propertiesType === 'json' ? 'json' : 'jsonb';
  await sql.unsafe(`
    create table ${t} (
      id bigserial primary key,
      geom geometry(Geometry, 4326) not null,
      properties ${props} not null default '{}',
      start_time timestamptz,
      end_time timestamptz,
      group_id text,
      feature_id text
    )`);
}

export async function createDatasetIndexes(sql: Queryable, table: string): Promise<void> {
  const t = safeTable(table);
  await sql.unsafe(`create index ${t}_geom_idx on ${t} using gist (geom)`);
  await sql.unsafe(`create index ${t}_time_idx on ${t} (start_time, end_time)`);
  await sql.unsafe(`create index ${t}_group_idx on ${t} (group_id)`);
}
