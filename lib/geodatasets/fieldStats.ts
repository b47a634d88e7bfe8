import type { Queryable } from '#lib/db/index.ts';
import type { StoredFieldStats } from './catalog.ts';
import { safeTable } from './catalog.ts';

/**
 * Dataset-wide field statistics (spec section 2, docs/contract.md#5-edge-cases-decided). Only top-level properties are
 * summarized; a value counts when it is a JSON number or a string that is entirely a number literal
 * (`NUMERIC_TEXT`). Stored per field: min, max, sum, sumsq, count; nullCount, avg and the population
 * stddev are derived on read by `toFieldStatsEntry`.
 */
export type StoredStats = Record<string, StoredFieldStats>;

/** The numeric rule of docs/contract.md#5-edge-cases-decided (the same text is used in SQL by `recomputeFieldStats`). */
export const NUMERIC_TEXT_SOURCE = '^-?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?$';
const NUMERIC_TEXT = new RegExp(NUMERIC_TEXT_SOURCE);

/** The number a property value counts as, or undefined. Non-finite values (1e999) do not count. */
export function numericValue(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v === 'string' && NUMERIC_TEXT.test(v)) {
    const n = Number(v);
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

/** Accumulates stats feature by feature (ingest computes them in the same pass as the insert). */
export class StatsAccumulator {
  readonly fields = new Map<string, StoredFieldStats>();

  add(props: Record<string, unknown>): void {
    for (const key in props) {
      const n = numericValue(props[key]);
      if (n === undefined) continue;
      const s = this.fields.get(key);
      if (s) {
        if (n < s.min) s.min = n;
        if (n > s.max) s.max = n;
        s.sum += n;
        s.sumsq += n * n;
        s.count++;
      } else {
        this.fields.set(key, { type: 'number', min: n, max: n, sum: n, sumsq: n * n, count: 1 });
      }
    }
  }

  toStored(): StoredStats {
    return Object.fromEntries(this.fields);
  }
}

/** `base` widened by `more` (an append): exact for min, max, count; sums add. */
export function mergeStats(base: StoredStats, more: StoredStats): StoredStats {
  const out: StoredStats = {};
  for (const [k, v] of Object.entries(base)) out[k] = { ...v };
  for (const [k, v] of Object.entries(more)) {
    const s = out[k];
    if (!s) out[k] = { ...v };
    else {
      s.min = Math.min(s.min, v.min);
      s.max = Math.max(s.max, v.max);
      s.sum += v.sum;
      s.sumsq += v.sumsq;
      s.count += v.count;
    }
  }
  return out;
}

/** A field_stats entry as the API shows it (spec section 2): the stored members plus the derived ones. */
export interface FieldStatsEntry extends StoredFieldStats {
  nullCount: number;
  avg: number | null;
  stddev: number | null;
}

/**
 * Derives nullCount (features without a number), avg and population stddev from the stored members.
 * @example toFieldStatsEntry({type:'number', min:1, max:3, sum:4, sumsq:10, count:2}, 5)
 *   // → {..., nullCount: 3, avg: 2, stddev: 1}
 */
export function toFieldStatsEntry(stored: StoredFieldStats, numFeatures: number): FieldStatsEntry {
  const count = Number(stored.count);
  const avg = count > 0 ? stored.sum / count : null;
  const variance = avg === null ? null : Math.max(0, stored.sumsq / count - avg * avg);
  return {
    type: 'number',
    min: stored.min,
    max: stored.max,
    sum: stored.sum,
    sumsq: stored.sumsq,
    count,
    nullCount: Math.max(0, numFeatures - count),
    avg,
    stddev: variance === null ? null : Math.sqrt(variance),
  };
}

/** Every field of a stored field_stats object as API entries. */
export function toFieldStats(stored: StoredStats, numFeatures: number): Record<string, FieldStatsEntry> {
  const out: Record<string, FieldStatsEntry> = {};
  for (const [k, v] of Object.entries(stored)) out[k] = toFieldStatsEntry(v, numFeatures);
  return out;
}

/**
 * Computes field_stats over every stored row of `table` in one pass (one scan, grouped by key). Works on
 * json and jsonb properties. Values beyond the float8 range are skipped, as on ingest.
 */
export async function computeStoredStats(
  sql: Queryable,
  table: string,
  propertiesType: 'json' | 'jsonb',
): Promise<StoredStats> {
  const t = safeTable(table);
  const each = propertiesType === 'json' ? 'json_each' : 'jsonb_each';
  const typeOf = propertiesType === 'json' ? 'json_typeof' : 'jsonb_typeof';
  // CASE keeps the casts behind their tests (the planner may evaluate quals in any order).
  const rows = await sql.unsafe(
    `select key, min(x) as min, max(x) as max, sum(x) as sum, sum(x * x) as sumsq, count(x)::int as count
     from (
       select e.key,
         case when ${typeOf}(e.value) = 'number'
                or (${typeOf}(e.value) = 'string' and (e.value #>> '{}') ~ $1)
              then case when abs((e.value #>> '{}')::numeric) < 1e308 then (e.value #>> '{}')::float8 end
         end as x
       from (select properties from ${t} where ${typeOf}(properties) = 'object') d, ${each}(d.properties) e
     ) v
     where x is not null
     group by key`,
    [NUMERIC_TEXT_SOURCE],
  );
  const out: StoredStats = {};
  for (const r of rows) {
    out[r.key as string] = {
      type: 'number',
      min: Number(r.min),
      max: Number(r.max),
      sum: Number(r.sum),
      sumsq: Number(r.sumsq),
      count: Number(r.count),
    };
  }
  return out;
}
