import type { Queryable } from '#lib/db/index.ts';
import { badRequest, notFound } from '#lib/errors.ts';
import { assertDatasetName, findDataset, type Geodataset, sqlTable } from '../catalog.ts';
import { type FieldStatsEntry, toFieldStats } from '../fieldStats.ts';
import { sqlProps } from './filters.ts';

/**
 * Field types, one rule for every answer that reports them (`GET /schema`, the TileJSON `vector_layers`,
 * `GET /aggregations` and its MMGIS shape): a field's type is the JSON type most of its sampled non-null
 * values hold, ties broken in `TYPE_ORDER`. The database samples `TYPE_SAMPLE_ROWS` rows per layer
 * (`sampleTypeCounts`); the aggregations count their own filtered sample in JS (`jsonType`).
 */
export type JsonType = 'number' | 'string' | 'boolean' | 'object' | 'array';
export const TYPE_ORDER: readonly JsonType[] = ['number', 'string', 'boolean', 'object', 'array'];
/** Rows sampled per layer to infer field types. */
export const TYPE_SAMPLE_ROWS = 1000;
export const MAX_LAYERS = 100;

/** The JSON type of a non-null value. */
export function jsonType(v: unknown): JsonType {
  if (Array.isArray(v)) return 'array';
  const t = typeof v;
  return t === 'number' || t === 'string' || t === 'boolean' ? t : 'object';
}

/** The type held by the most values among `candidates` (ties: the earlier in `candidates`). */
export function majorityType<T extends JsonType>(
  count: (t: T) => number,
  candidates: readonly T[] = TYPE_ORDER as readonly T[],
): T {
  return candidates.reduce((best, t) => (count(t) > count(best) ? t : best), candidates[0]);
}

/**
 * Per key, how many of the sampled rows hold each non-null JSON type: the top-level keys, or with `source`
 * the given paths (keyed by their dotted path). `pick` is `random` (a fresh sample) or `first` (the first
 * rows by id, so the same dataset version answers the same).
 */
export async function sampleTypeCounts(
  sql: Queryable,
  ds: Geodataset,
  pick: 'random' | 'first',
  source?: string[][],
): Promise<Map<string, Map<JsonType, number>>> {
  const p = sql`s.p`;
  const pairs = source?.length
    ? source
        .map((path) => sql`(${path.join('.')}::text, ${p} #> ${path}::text[])`)
        .reduce((a, b) => sql`${a}, ${b}`)
    : undefined;
  const entries = pairs
    ? sql`(values ${pairs}) as e(key, value)`
    : sql`jsonb_each(case when jsonb_typeof(${p}) = 'object' then ${p} else '{}'::jsonb end) e`;
  const order = pick === 'random' ? sql`random()` : sql`id`;
  const rows = await sql`
    select e.key, jsonb_typeof(e.value) as type, count(*)::int as n
    from (select ${sqlProps(sql, ds)} as p from ${sqlTable(sql, ds)} order by ${order} limit ${TYPE_SAMPLE_ROWS}::int) s,
         lateral ${entries}
    where jsonb_typeof(e.value) <> 'null'
    group by 1, 2`;
  const out = new Map<string, Map<JsonType, number>>();
  for (const r of rows) {
    const byType = out.get(r.key as string) ?? new Map<JsonType, number>();
    byType.set(r.type as JsonType, Number(r.n));
    out.set(r.key as string, byType);
  }
  return out;
}

export type FieldType = 'Number' | 'String' | 'Boolean';

/**
 * The TileJSON `vector_layers` fields: each top-level key's type over the first rows, or with `_source`
 * the given paths (named by their dotted path, as in the tiles); objects and arrays are `String`.
 */
export async function readTileFields(
  sql: Queryable,
  ds: Geodataset,
  source?: string[][],
): Promise<Record<string, FieldType>> {
  const counts = await sampleTypeCounts(sql, ds, 'first', source);
  const out: Record<string, FieldType> = {};
  for (const p of source ?? []) out[p.join('.')] = 'String';
  for (const [key, byType] of [...counts.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const t = majorityType((k) => byType.get(k) ?? 0);
    out[key] = t === 'number' ? 'Number' : t === 'boolean' ? 'Boolean' : 'String';
  }
  return out;
}

/**
 * `layers`: comma-separated names, at most 100 (checked before any lookup, docs/contract.md#5-edge-cases-decided), each a valid
 * name; then every one must exist (404 naming the unknown ones). Duplicates are read once.
 */
export async function requireLayers(sql: Queryable, value: unknown, param = 'layers'): Promise<Geodataset[]> {
  if (typeof value !== 'string' || value.trim() === '') {
    throw badRequest(`Missing required query parameter '${param}' (comma-separated layer names).`);
  }
  const names = [
    ...new Set(
      value
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== ''),
    ),
  ];
  if (names.length > MAX_LAYERS)
    throw badRequest(`'${param}' names ${names.length} layers; at most ${MAX_LAYERS} are allowed.`);
  for (const n of names) assertDatasetName(n, param);
  const found = await Promise.all(names.map((n) => findDataset(sql, n)));
  const missing = names.filter((_, i) => !found[i]);
  if (missing.length)
    throw notFound(
      `Geodataset${missing.length > 1 ? 's' : ''} ${missing.map((m) => `'${m}'`).join(', ')} not found.`,
    );
  return found as Geodataset[];
}

export interface SchemaAnswer {
  status: 'success';
  schema: Record<string, { type: string; layers: string[] }>;
  field_stats: Record<string, Record<string, FieldStatsEntry>>;
}

/**
 * GET /schema: each top-level property's JSON type (the one most sampled values hold, over all the
 * layers) and the layers holding it; `field_stats` from the catalog, omitting layers without stats.
 */
export async function readSchema(sql: Queryable, datasets: Geodataset[]): Promise<SchemaAnswer> {
  const counts = new Map<string, Map<JsonType, number>>();
  const layersOf = new Map<string, string[]>();
  for (const ds of datasets) {
    for (const [key, byType] of await sampleTypeCounts(sql, ds, 'random')) {
      const total = counts.get(key) ?? new Map<JsonType, number>();
      for (const [t, n] of byType) total.set(t, (total.get(t) ?? 0) + n);
      counts.set(key, total);
      const layers = layersOf.get(key) ?? [];
      if (!layers.includes(ds.name)) layers.push(ds.name);
      layersOf.set(key, layers);
    }
  }
  const schema: SchemaAnswer['schema'] = {};
  for (const key of [...counts.keys()].sort()) {
    const byType = counts.get(key)!;
    schema[key] = { type: majorityType((t) => byType.get(t) ?? 0), layers: layersOf.get(key)! };
  }
  const field_stats: SchemaAnswer['field_stats'] = {};
  for (const ds of datasets)
    if (ds.fieldStats) field_stats[ds.name] = toFieldStats(ds.fieldStats, ds.numFeatures);
  return { status: 'success', schema, field_stats };
}
