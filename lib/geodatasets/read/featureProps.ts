import { type Fragment, sqlIdentifier } from '#lib/db/fragments.ts';
import type { Queryable } from '#lib/db/index.ts';
import { type Geodataset, sqlTable } from '../catalog.ts';
import { sqlNumeric } from '../numeric.ts';
import { sqlPathValues } from './columns.ts';
import { type ReadFilters, sqlColumn, sqlGroupKey, sqlPropPath, sqlWhere } from './filters.ts';

/**
 * A feature's properties as a GeoJSON read answers them (docs/geodatasets-read.md), as SQL for
 * `featuresQuery` (geojson.ts): the `_source` projection, the per-group `stats` over the matched rows,
 * and `properties._` (`idx`, the times, the stats).
 */

/** A `stats` field: the name as requested and its path. */
export interface StatsField {
  name: string;
  path: string[];
}

interface SourceNode {
  /** A requested path ends here: the whole value is taken (deeper requested paths are inside it). */
  leaf: boolean;
  children: Map<string, SourceNode>;
}

/** The requested paths as a tree, so each path's value is read once and shared prefixes are built once. */
function sourceTree(source: string[][]): SourceNode {
  const root: SourceNode = { leaf: false, children: new Map() };
  for (const path of source) {
    let node = root;
    for (const seg of path) {
      if (node.leaf) break;
      let next = node.children.get(seg);
      if (!next) {
        next = { leaf: false, children: new Map() };
        node.children.set(seg, next);
      }
      node = next;
    }
    node.leaf = true;
    node.children.clear();
  }
  return root;
}

/**
 * The value of a top-level `group_id`/`feature_id` path: the feature's derived column when it has one
 * (as MMGIS answers), else the stored property of that name.
 */
function sqlSourceValue(sql: Queryable, ds: Geodataset, path: string[], alias: string): Fragment {
  const value = sqlPropPath(sql, ds, path, alias);
  if (path.length === 1 && (path[0] === 'group_id' || path[0] === 'feature_id')) {
    return sql`coalesce(to_jsonb(${sqlColumn(sql, path[0], alias)}), ${value})`;
  }
  return value;
}

/**
 * The object of one tree node: its children's values, absent (SQL NULL) ones left out, NULL when none is
 * present. Every child expression appears exactly once, so the SQL (and its parameters) grows linearly
 * with the number of paths; a path's value is read with one `#>`.
 */
function sqlSourceNode(
  sql: Queryable,
  ds: Geodataset,
  node: SourceNode,
  prefix: string[],
  alias: string,
): Fragment {
  const rows = [...node.children].map(([key, child]) => {
    const path = [...prefix, key];
    const v = child.leaf ? sqlSourceValue(sql, ds, path, alias) : sqlSourceNode(sql, ds, child, path, alias);
    return sql`(${key}::text, ${v})`;
  });
  const values = rows.reduce((a, r) => sql`${a}, ${r}`);
  return sql`(select jsonb_object_agg(s.k, s.v) from (values ${values}) s(k, v) where s.v is not null)`;
}

/**
 * `_source`: a new object holding only the requested paths (nested objects kept, absent paths omitted).
 * Linear in the number of paths (docs/geodatasets-read.md); the parser dedupes and caps them.
 */
export function sqlSourceProps(sql: Queryable, ds: Geodataset, source: string[][], alias: string): Fragment {
  const tree = sourceTree(source);
  if (tree.children.size === 0) return sql`'{}'::jsonb`;
  return sql`coalesce(${sqlSourceNode(sql, ds, tree, [], alias)}, '{}'::jsonb)`;
}

/**
 * With `stats`: the matched rows (every filter but noDuplicates and `id`: docs/contract.md#5-edge-cases-decided, `id` narrows the
 * features, never the statistics) with their group's statistics as window aggregates over the group key,
 * and the group's highest id (`keep`) for noDuplicates. One scan and one sort, no join: the planner's row
 * estimates for property filters are poor, and a join on them was not.
 *
 * Each field's number is read once per row, by one expression for all fields: the fields' paths are a
 * `values` list, and a row's numbers an array in the fields' order (`sqlFieldNumbers`). The numeric rule's
 * SQL (about 1,000 characters) is written once, not once per field, so a field adds about 300 characters:
 * 100 fields (the most a request names) stay far under the Data API's 65,536 characters per statement
 * (docs/geodatasets-read.md, "stats").
 */
export function sqlRowsWithStats(
  sql: Queryable,
  ds: Geodataset,
  f: ReadFilters,
  stats: StatsField[],
): Fragment {
  const table = sqlTable(sql, ds);
  const where = sqlWhere(sql, ds, { ...f, id: undefined, noDuplicates: false }, 'm');
  const columns = stats
    .map((_, i) => sql`${sqlIdentifier(sql, 'r.v')}[${i + 1}::int] as ${sql(`s${i}`)}`)
    .reduce((a, c) => sql`${a}, ${c}`);
  const objects = stats.map((s, i) => {
    const n = sqlIdentifier(sql, `n.s${i}`);
    return sql`jsonb_build_object(${s.name}::text, jsonb_build_object('min', min(${n}) over w, 'max', max(${n}) over w,
      'avg', avg(${n}) over w, 'sum', sum(${n}) over w, 'stddev', stddev_pop(${n}) over w))`;
  });
  const merged = objects.reduce((a, o) => sql`${a} || ${o}`);
  return sql`select n.id, n.geom, n.properties, n.start_time, n.end_time, n.group_id, n.feature_id,
      ${merged} as stats, max(n.id) over w as keep
    from (select r.*, ${columns} from (select m.*, ${sqlGroupKey(sql, ds, 'm')} as group_key,
      ${sqlFieldNumbers(sql, ds, stats, 'm')} as v from ${table} m where ${where}) r) n
    window w as (partition by n.group_key)`;
}

/**
 * The numbers of a row's `stats` fields (the numeric rule, lib/geodatasets/numeric.ts) as a float8 array
 * in the fields' order, NULL where a field holds no number: one subquery over the paths, each path a
 * bound `text[]`.
 */
function sqlFieldNumbers(sql: Queryable, ds: Geodataset, stats: StatsField[], alias: string): Fragment {
  const values = sqlPathValues(
    sql,
    ds,
    stats.map((s) => s.path),
    alias,
  );
  return sql`(select array_agg(${sqlNumeric(sql, sqlIdentifier(sql, 'p.j'))} order by p.i) from ${values} p)`;
}

/**
 * `properties._` as JSON text: `idx`, then `start_time`/`end_time` as strings of epoch milliseconds when
 * the feature has them (as MMGIS sends them), then `stats` when requested.
 */
export function sqlMeta(sql: Queryable, withStats: boolean): Fragment {
  const ms = (column: Fragment, key: string) =>
    sql`(case when ${column} is null then '' else ${`,"${key}":"`}::text ||
      floor(extract(epoch from ${column}) * 1000)::bigint::text || '"' end)`;
  const start = ms(sql`t.start_time`, 'start_time');
  const end = ms(sql`t.end_time`, 'end_time');
  const stats = withStats ? sql`',"stats":' || t.stats::text` : sql`''`;
  return sql`'{"idx":' || t.id || ${start} || ${end} || ${stats} || '}'`;
}

/**
 * The properties text with `"_": meta` appended: by text when the object has no `_` (cheaper than a jsonb
 * merge and re-serialization per row), by jsonb merge when a stored `_` must be replaced.
 */
export function sqlWithMeta(sql: Queryable, props: Fragment, meta: Fragment): Fragment {
  return sql`(case when ${props} = '{}'::jsonb then '{"_":' || ${meta} || '}'
    when ${props} ? '_' then (${props} || jsonb_build_object('_', (${meta})::jsonb))::text
    else left((${props})::text, -1) || ',"_":' || ${meta} || '}' end)`;
}
