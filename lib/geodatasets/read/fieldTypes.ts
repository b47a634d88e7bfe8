import type { Queryable } from '#lib/db/index.ts';
import { badRequest, notFound } from '#lib/errors.ts';
import { assertDatasetName, findDataset, type Geodataset, sqlTable } from '../catalog.ts';
import { type FieldStatsEntry, toFieldStats } from '../fieldStats.ts';
import { sqlProps } from './filters.ts';

export const MAX_LAYERS = 100;
/** Rows sampled per layer to infer field types. */
export const SCHEMA_SAMPLE = 1000;

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
  const counts = new Map<string, Map<string, number>>();
  const layersOf = new Map<string, string[]>();
  for (const ds of datasets) {
    const rows = await sql`
      select e.key, jsonb_typeof(e.value) as type, count(*)::int as n
      from (select ${sqlProps(sql, ds)} as p from ${sqlTable(sql, ds)} order by random() limit ${SCHEMA_SAMPLE}) s,
           jsonb_each(case when jsonb_typeof(s.p) = 'object' then s.p else '{}'::jsonb end) e
      where jsonb_typeof(e.value) <> 'null'
      group by 1, 2`;
    for (const r of rows) {
      const key = r.key as string;
      const byType = counts.get(key) ?? new Map<string, number>();
      byType.set(r.type as string, (byType.get(r.type as string) ?? 0) + Number(r.n));
      counts.set(key, byType);
      const layers = layersOf.get(key) ?? [];
      if (!layers.includes(ds.name)) layers.push(ds.name);
      layersOf.set(key, layers);
    }
  }
  const schema: SchemaAnswer['schema'] = {};
  for (const key of [...counts.keys()].sort()) {
    const byType = [...counts.get(key)!.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    schema[key] = { type: byType[0][0], layers: layersOf.get(key)! };
  }
  const field_stats: SchemaAnswer['field_stats'] = {};
  for (const ds of datasets)
    if (ds.fieldStats) field_stats[ds.name] = toFieldStats(ds.fieldStats, ds.numFeatures);
  return { status: 'success', schema, field_stats };
}
