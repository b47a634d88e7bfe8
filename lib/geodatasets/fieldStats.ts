import type { Queryable } from '#lib/db/index.ts';
import { type StoredFieldStats, sqlTable } from './catalog.ts';
import { highestId } from './extents.ts';
import { numericValue, sqlNumeric } from './numeric.ts';

/**
 * Dataset-wide field statistics (docs/contract.md#5-edge-cases-decided). Top-level properties and the
 * members of nested objects (under their dotted path, `meta.depth`; arrays are not descended) are
 * summarized; a value counts under the numeric rule of `numeric.ts` (poison numbers are skipped:
 * docs/geodatasets-read.md). Stored per field: min, max, sum, sumsq, count; nullCount, avg and the
 * population stddev are derived on read by `toFieldStatsEntry`.
 */
export type StoredStats = Record<string, StoredFieldStats>;

/** Nesting depth up to which members of nested objects are summarized. */
const MAX_DEPTH = 16;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Accumulates stats feature by feature (ingest computes them in the same pass as the insert). */
export class StatsAccumulator {
  readonly fields = new Map<string, StoredFieldStats>();

  add(props: Record<string, unknown>, prefix = '', depth = 0): void {
    for (const name in props) {
      const value = props[name];
      const key = prefix + name;
      if (isObject(value)) {
        if (depth < MAX_DEPTH) this.add(value, `${key}.`, depth + 1);
        continue;
      }
      const n = numericValue(value);
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
 * Rows of the primary key one statement of `computeStoredStats` reads. The RDS Data API stops a statement
 * after 45 s (docs/connections.md, "Long job statements on the Data API"): a whole large layer in one statement passed that
 * (the hourly `jobRecomputeMissingStats`), so the stats are summed over id ranges, each statement bounded
 * (about 2 s per 100,000 rows of ten properties on a loaded 2-core machine: docs/connections.md).
 */
export const STATS_CHUNK_IDS = 100_000;

/**
 * Computes field_stats over every stored row of `table`: members of nested objects under their dotted path
 * (a recursive walk, depth-bounded as on ingest), in statements of `chunkIds` ids each, merged here
 * (`mergeStats`: min, max, sum, sumsq and count merge exactly). Works on json and jsonb properties.
 * Poison numbers are skipped, as on ingest: the text goes through `numeric` (bounded so the cast cannot
 * overflow) and magnitudes above `MAX_MAGNITUDE` do not count.
 */
export async function computeStoredStats(
  sql: Queryable,
  table: string,
  propertiesType: 'json' | 'jsonb',
  chunkIds = STATS_CHUNK_IDS,
): Promise<StoredStats> {
  const top = await highestId(sql, { table });
  let out: StoredStats = {};
  for (let after = 0; after < top; after += chunkIds) {
    out = mergeStats(
      out,
      await statsOfRange(sql, table, propertiesType, after, Math.min(top, after + chunkIds)),
    );
  }
  return out;
}

/** The field_stats of the rows with `after < id <= upTo`, one statement (one scan, grouped by key). */
async function statsOfRange(
  sql: Queryable,
  table: string,
  propertiesType: 'json' | 'jsonb',
  after: number,
  upTo: number,
): Promise<StoredStats> {
  const t = sqlTable(sql, { table });
  const json = propertiesType === 'json';
  const each = json ? sql`json_each` : sql`jsonb_each`;
  const typeOf = json ? sql`json_typeof` : sql`jsonb_typeof`;
  const rows = sql`
    select properties from ${t}
    where id > ${after}::bigint and id <= ${upTo}::bigint and ${typeOf}(properties) = 'object'`;
  // CASE (in sqlNumeric) keeps the casts behind their tests (the planner may evaluate quals in any order).
  const found = await sql`
    with recursive nested(key, value, depth) as (
       select o.key || '.' || c.key, c.value, 1
       from (select e.key, e.value from (${rows}) d, ${each}(d.properties) e
             where ${typeOf}(e.value) = 'object') o, ${each}(o.value) c
       union all
       select n.key || '.' || c.key, c.value, n.depth + 1
       from nested n, ${each}(n.value) c
       where ${typeOf}(n.value) = 'object' and n.depth < ${MAX_DEPTH}::int
     ), e as (
       select e.key, e.value from (${rows}) d, ${each}(d.properties) e
       union all
       select key, value from nested
     )
     select key, min(x) as min, max(x) as max, sum(x) as sum, sum(x * x) as sumsq, count(x)::int as count
     from (
       select key, ${sqlNumeric(sql, sql`value`, propertiesType)} as x
       from e
       where ${typeOf}(value) in ('number', 'string')
     ) w
     where x is not null
     group by key`;
  const out: StoredStats = {};
  for (const r of found) {
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
