import type postgres from 'postgres';
import type { Queryable } from '#lib/db/index.ts';
import { badRequest } from '#lib/errors.ts';
import { type Geodataset, safeTable } from '../catalog.ts';
import {
  parseBool,
  parseInteger,
  parsePath,
  type ReadFilters,
  sqlColumn,
  sqlGroupKey,
  sqlNumeric,
  sqlPropPath,
  sqlProps,
  sqlWhere,
  withReadErrors,
} from './filters.ts';

type Fragment = postgres.PendingQuery<any>;

/** The geojson-only options of `GET /get`: paging, `_source`, `stats`. */
export interface GeojsonOptions {
  /** Clamped to [1, 10000]; undefined = every matching feature. */
  limit?: number;
  offset: number;
  /** `_source` paths; undefined = all properties. */
  source?: string[][];
  /** `stats` fields: the name as requested and its path. */
  stats?: { name: string; path: string[] }[];
}

export const MAX_LIMIT = 10000;
const MAX_FIELDS = 50;

function list(query: Record<string, unknown>, key: string): string[] | undefined {
  const v = query[key];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') throw badRequest(`'${key}' must be a comma-separated string.`);
  const names = v
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (names.length > MAX_FIELDS) throw badRequest(`'${key}' names more than ${MAX_FIELDS} fields.`);
  return names;
}

/**
 * `limit` (clamped to 1..10000; a non-integer is 400), `offset` (integer ≥ 0), `limited` (the first three),
 * `_source` and `stats` (comma-separated dot paths).
 */
export function parseGeojsonOptions(query: Record<string, unknown>): GeojsonOptions {
  const out: GeojsonOptions = { offset: 0 };
  const limit = parseInteger(query, 'limit');
  if (limit !== undefined) out.limit = Math.min(MAX_LIMIT, Math.max(1, limit));
  const offset = parseInteger(query, 'offset');
  if (offset !== undefined) {
    if (offset < 0) throw badRequest(`'offset' must be 0 or more.`);
    out.offset = offset;
  }
  if (parseBool(query, 'limited')) out.limit = Math.min(out.limit ?? 3, 3);
  const source = list(query, '_source');
  if (source) out.source = source.map((p) => parsePath(p, '_source'));
  const stats = list(query, 'stats');
  if (stats) out.stats = [...new Set(stats)].map((name) => ({ name, path: parsePath(name, 'stats') }));
  return out;
}

/**
 * `_source`: a new object holding only the requested paths (nested objects kept, absent paths omitted),
 * built with `jsonb_set` one level at a time so intermediate objects exist.
 */
function sqlSourceProps(sql: Queryable, ds: Geodataset, source: string[][], alias: string): Fragment {
  let acc: Fragment = sql`'{}'::jsonb`;
  for (const path of source) {
    const value = sqlPropPath(sql, ds, path, alias);
    let step: Fragment = acc;
    for (let i = 1; i < path.length; i++) {
      const prefix = path.slice(0, i);
      step = sql`jsonb_set(${step}, ${prefix}::text[],
        case when jsonb_typeof(${step} #> ${prefix}::text[]) = 'object' then ${step} #> ${prefix}::text[] else '{}'::jsonb end)`;
    }
    acc = sql`(case when ${value} is null then ${acc} else jsonb_set(${step}, ${path}::text[], ${value}) end)`;
  }
  return acc;
}

/**
 * With `stats`: the matched rows (every filter but noDuplicates) with their group's statistics as window
 * aggregates over the group key, and the group's highest id (`keep`) for noDuplicates. One scan and one
 * sort, no join: the planner's row estimates for property filters are poor, and a join on them was not.
 */
function sqlRowsWithStats(
  sql: Queryable,
  ds: Geodataset,
  f: ReadFilters,
  stats: NonNullable<GeojsonOptions['stats']>,
): Fragment {
  const table = sql(safeTable(ds.table)) as unknown as Fragment;
  const where = sqlWhere(sql, ds, { ...f, noDuplicates: false }, 'm');
  const objects = stats.map((s) => {
    const n = sqlNumeric(sql, sqlPropPath(sql, ds, s.path, 'm'));
    return sql`jsonb_build_object(${s.name}::text, jsonb_build_object('min', min(${n}) over w, 'max', max(${n}) over w,
      'avg', avg(${n}) over w, 'sum', sum(${n}) over w, 'stddev', stddev_pop(${n}) over w))`;
  });
  const merged = objects.reduce((a, o) => sql`${a} || ${o}`);
  return sql`select m.id, m.geom, m.properties, ${merged} as stats, max(m.id) over w as keep
    from ${table} m where ${where}
    window w as (partition by ${sqlGroupKey(sql, ds, 'm')})`;
}

/**
 * The properties text with `"_": meta` appended: by text when the object has no `_` (cheaper than a jsonb
 * merge and re-serialization per row), by jsonb merge when a stored `_` must be replaced.
 */
function sqlWithMeta(sql: Queryable, props: Fragment, meta: Fragment): Fragment {
  return sql`(case when ${props} = '{}'::jsonb then '{"_":' || ${meta} || '}'
    when ${props} ? '_' then (${props} || jsonb_build_object('_', (${meta})::jsonb))::text
    else left((${props})::text, -1) || ',"_":' || ${meta} || '}' end)`;
}

/**
 * The features of a read as JSON text `<before>[f1,f2,...]<after>`, assembled entirely in the database:
 * ordered by id, `properties._.idx` = id, `_source` projection, per-group `stats` over the whole matched
 * set (before paging), then `limit`/`offset`. The text is passed through to the client untouched.
 * `string_agg` takes the rows in the subquery's id order (no aggregate ORDER BY: on PostgreSQL 15 that
 * would sort the whole text a second time).
 */
export async function readFeaturesJson(
  sql: Queryable,
  ds: Geodataset,
  f: ReadFilters,
  opts: GeojsonOptions,
  wrap: { before: string; after: string },
): Promise<string> {
  const table = sql(safeTable(ds.table)) as unknown as Fragment;
  const props = opts.source ? sqlSourceProps(sql, ds, opts.source, 't') : sqlProps(sql, ds, 't');
  const id = sqlColumn(sql, 'id', 't');
  const meta = opts.stats?.length
    ? sql`'{"idx":' || ${id} || ',"stats":' || t.stats::text || '}'`
    : sql`'{"idx":' || ${id} || '}'`;
  const from = opts.stats?.length
    ? sql`(${sqlRowsWithStats(sql, ds, f, opts.stats)}) t where ${f.noDuplicates ? sql`t.id = t.keep` : sql`true`}`
    : sql`${table} t where ${sqlWhere(sql, ds, f, 't')}`;
  const q = sql('q') as unknown as Fragment;
  const query = sql`
    select ${wrap.before}::text || '[' || coalesce(string_agg('{"type":"Feature","geometry":' || ST_AsGeoJSON(q.geom)
      || ',"properties":' || ${sqlWithMeta(sql, sql`q.p`, sql`q.meta`)} || '}', ','), '') || ']' || ${wrap.after}::text as fc
    from (
      select t.id, t.geom, ${props} as p, ${meta} as meta
      from ${from}
      order by t.id
      limit ${opts.limit ?? null} offset ${opts.offset}
    ) ${q}`;
  const [row] = await withReadErrors(() => query);
  return row.fc as string;
}

/** The bare FeatureCollection text of `GET /get` with `type=geojson`. */
export function readFeatureCollection(
  sql: Queryable,
  ds: Geodataset,
  f: ReadFilters,
  opts: GeojsonOptions,
): Promise<string> {
  return readFeaturesJson(sql, ds, f, opts, {
    before: '{"type":"FeatureCollection","features":',
    after: '}',
  });
}
