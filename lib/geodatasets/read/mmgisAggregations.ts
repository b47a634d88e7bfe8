import { majorityType } from './fieldTypes.ts';

/**
 * The top-level `aggregations` of `GET /aggregations` and `/bulk_aggregations` in the MMGIS map client's
 * shape (docs/contract.md#4-geodatasets-api; its filter value pickers read it): per field, the JSON type most of its sampled
 * non-null values hold, and the counts of that type's distinct values, most frequent first, at most
 * `MAX_VALUES`. Values are keys as text (`5`, `true`); objects and arrays are not summarized.
 */
export type MmgisAggregations = Record<
  string,
  { type: 'number' | 'string' | 'boolean'; aggs: Record<string, number> }
>;

export const MAX_VALUES = 500;
const TYPES = ['number', 'string', 'boolean'] as const;
type Kind = (typeof TYPES)[number];

function kindOf(v: unknown): Kind | undefined {
  const t = typeof v;
  return t === 'number' || t === 'string' || t === 'boolean' ? t : undefined;
}

/** Value counts per field and type, before the majority type is chosen (mergeable across layers). */
type Counts = Map<string, Map<Kind, Map<string, number>>>;

function count(samples: Record<string, unknown>[], into: Counts = new Map()): Counts {
  for (const p of samples) {
    if (!p || typeof p !== 'object' || Array.isArray(p)) continue;
    for (const [field, v] of Object.entries(p)) {
      const kind = kindOf(v);
      if (!kind) continue;
      const byKind = into.get(field) ?? new Map<Kind, Map<string, number>>();
      into.set(field, byKind);
      const values = byKind.get(kind) ?? new Map<string, number>();
      byKind.set(kind, values);
      const key = String(v);
      values.set(key, (values.get(key) ?? 0) + 1);
    }
  }
  return into;
}

function shape(counts: Counts): MmgisAggregations {
  const out: MmgisAggregations = {};
  for (const field of [...counts.keys()].sort()) {
    const byKind = counts.get(field)!;
    const total = (k: Kind) => [...(byKind.get(k)?.values() ?? [])].reduce((a, b) => a + b, 0);
    const type = majorityType(total, TYPES);
    const values = [...(byKind.get(type) ?? new Map<string, number>()).entries()]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
      .slice(0, MAX_VALUES);
    out[field] = { type, aggs: Object.fromEntries(values) };
  }
  return out;
}

/** The MMGIS shape of one layer's sample. */
export function mmgisAggregations(samples: Record<string, unknown>[]): MmgisAggregations {
  return shape(count(samples));
}

/** The MMGIS shape merged over several layers' samples (bulk_aggregations, as MMGIS merges them). */
export function mergedMmgisAggregations(samplesPerLayer: Record<string, unknown>[][]): MmgisAggregations {
  const counts: Counts = new Map();
  for (const samples of samplesPerLayer) count(samples, counts);
  return shape(counts);
}
