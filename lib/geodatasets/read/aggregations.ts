import type { Queryable } from '#lib/db/index.ts';
import { type Geodataset, sqlTable } from '../catalog.ts';
import { type JsonType, jsonType, majorityType } from './fieldTypes.ts';
import { type ReadFilters, resolveReadFilters, sqlProps, sqlWhere, withReadErrors } from './filters.ts';

export const DEFAULT_SAMPLE = 500;
export const MAX_SAMPLE = 1000;
const BINS = 10;
const TOP_STRINGS = 50;

export type Aggregation =
  | { type: 'number'; min: number; max: number; histogram: { min: number; max: number; count: number }[] }
  | { type: 'string'; values: Record<string, number> }
  | { type: 'boolean'; values: { true: number; false: number } };

export interface AggregationsBody {
  layer: string;
  sampled: number;
  total: number;
  aggregations: Record<string, Aggregation>;
}

/**
 * `limit`: the sample size, default 500, clamped to [1, 1000] (docs/contract.md#5-edge-cases-decided);
 * its type and range are declared (`sampleParams`).
 */
export function parseSampleSize(limit: number | null | undefined): number {
  return limit === undefined || limit === null ? DEFAULT_SAMPLE : Math.min(MAX_SAMPLE, Math.max(1, limit));
}

/**
 * Summarizes the top-level properties of a sample: a field's type is the majority JSON type of its
 * non-null sampled values (`majorityType`); values of other types are ignored for it; fields
 * mostly holding objects or arrays are left out. Numbers: min, max and 10 equal-width bins (the last bin
 * closed; all in the first when min = max). Strings: the 50 most frequent (ties by code point).
 */
export function aggregate(samples: Record<string, unknown>[]): Record<string, Aggregation> {
  const byField = new Map<string, unknown[]>();
  for (const p of samples) {
    if (!p || typeof p !== 'object') continue;
    for (const [k, v] of Object.entries(p)) {
      if (v === null || v === undefined) continue;
      const list = byField.get(k) ?? [];
      list.push(v);
      byField.set(k, list);
    }
  }
  const out: Record<string, Aggregation> = {};
  for (const field of [...byField.keys()].sort()) {
    const values = byField.get(field)!;
    const counts = new Map<JsonType, number>();
    for (const v of values) counts.set(jsonType(v), (counts.get(jsonType(v)) ?? 0) + 1);
    const type = majorityType((t) => counts.get(t) ?? 0);
    if (type === 'number') {
      const nums = values.filter((v): v is number => typeof v === 'number');
      let min = Number.POSITIVE_INFINITY;
      let max = Number.NEGATIVE_INFINITY;
      for (const n of nums) {
        if (n < min) min = n;
        if (n > max) max = n;
      }
      const width = (max - min) / BINS;
      const histogram = Array.from({ length: BINS }, (_, i) => ({
        min: min + i * width,
        max: i === BINS - 1 ? max : min + (i + 1) * width,
        count: 0,
      }));
      for (const n of nums)
        histogram[width > 0 ? Math.min(BINS - 1, Math.floor((n - min) / width)) : 0].count++;
      out[field] = { type: 'number', min, max, histogram };
    } else if (type === 'string') {
      const freq = new Map<string, number>();
      for (const v of values) if (typeof v === 'string') freq.set(v, (freq.get(v) ?? 0) + 1);
      const top = [...freq.entries()]
        .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
        .slice(0, TOP_STRINGS);
      out[field] = { type: 'string', values: Object.fromEntries(top) };
    } else if (type === 'boolean') {
      const t = values.filter((v) => v === true).length;
      const f = values.filter((v) => v === false).length;
      out[field] = { type: 'boolean', values: { true: t, false: f } };
    }
  }
  return out;
}

/**
 * GET /aggregations for one dataset: `total` matching features, a random sample of `limit`, summarized
 * (`body`), and the sample itself for the MMGIS-shaped top-level `aggregations` (mmgisAggregations.ts).
 */
export async function readAggregations(
  sql: Queryable,
  ds: Geodataset,
  filters: ReadFilters,
  limit: number,
): Promise<{ body: AggregationsBody; samples: Record<string, unknown>[] }> {
  const f = await resolveReadFilters(sql, filters);
  const table = sqlTable(sql, ds);
  const where = sqlWhere(sql, ds, f, 't');
  const [[{ total }], sample] = await withReadErrors(() =>
    Promise.all([
      sql`select count(*)::int as total from ${table} t where ${where}`,
      sql`select ${sqlProps(sql, ds, 't')} as p from ${table} t where ${where} order by random() limit ${limit}`,
    ]),
  );
  const samples = sample.map((r) => r.p as Record<string, unknown>);
  return {
    body: { layer: ds.name, sampled: sample.length, total: Number(total), aggregations: aggregate(samples) },
    samples,
  };
}
