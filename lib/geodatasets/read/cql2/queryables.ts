import type { Queryable } from '#lib/db/index.ts';
import { type Geodataset, sqlTable } from '#lib/geodatasets/catalog.ts';

/**
 * A geodataset's queryables (docs/cql2.md, "Queryables"): what a filter may name, and what
 * `/api/ogc/collections/{name}/queryables` lists. Four come from the table itself: `id` (the feature's row
 * id), `geometry`, `start_time` and `end_time`. The others are the feature properties: the top-level keys
 * the catalog counts on every write (`property_types`, lib/geodatasets/extents.ts: the same counts the
 * items' `name=value` queryables come from), typed by the JSON type most of their values hold, and every
 * field of the catalog's field_stats (numbers, nested ones under their dotted path, with their minimum and
 * maximum). These four names win over a property of the same name. A string property whose values are all
 * days (`YYYY-MM-DD`) has `format: date`, one whose values are all RFC 3339 date-times `format: date-time`,
 * read from the first `FORMAT_SAMPLE` features that hold it: a filter compares two such properties as
 * instants, and a temporal operator takes a day-valued one as its whole day (docs/cql2.md).
 */

export type QueryableType = 'integer' | 'number' | 'string' | 'boolean' | 'object' | 'array';
export type QueryableRole = 'id' | 'primary-geometry' | 'primary-interval-start' | 'primary-interval-end';

export interface QueryableField {
  /** A table column, or a property path in the jsonb `properties`. */
  column?: 'id' | 'geom' | 'start_time' | 'end_time';
  path?: string[];
  type?: QueryableType;
  format?: string;
  role?: QueryableRole;
  minimum?: number;
  maximum?: number;
}

export type Queryables = Map<string, QueryableField>;

export const COLUMN_QUERYABLES: [string, QueryableField][] = [
  ['id', { column: 'id', type: 'integer', role: 'id' }],
  ['geometry', { column: 'geom', format: 'geometry-any', role: 'primary-geometry' }],
  [
    'start_time',
    { column: 'start_time', type: 'string', format: 'date-time', role: 'primary-interval-start' },
  ],
  ['end_time', { column: 'end_time', type: 'string', format: 'date-time', role: 'primary-interval-end' }],
];

const ORDER: QueryableType[] = ['number', 'string', 'boolean', 'object', 'array'];

/** Features read to decide a string property's `format` (the first ones of the table, by row id). */
const FORMAT_SAMPLE = 1000;
const DAY_RE = '^[0-9]{4}-[0-9]{2}-[0-9]{2}$';
const DATE_TIME_RE =
  '^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})$';

/** The `format` of each top-level string property whose sampled values are all days or all date-times. */
async function stringFormats(sql: Queryable, ds: Geodataset, names: string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (names.length === 0) return out;
  const rows = await sql`
    select e.key, bool_and(e.value #>> '{}' ~ ${DAY_RE}) as day, bool_and(e.value #>> '{}' ~ ${DATE_TIME_RE}) as time
    from (select t.properties from ${sqlTable(sql, ds)} t order by t.id limit ${FORMAT_SAMPLE}::int) r,
      jsonb_each(r.properties) e
    where jsonb_typeof(e.value) = 'string' and e.key = any(${names}::text[])
    group by e.key`;
  for (const r of rows) {
    if (r.day) out.set(r.key, 'date');
    else if (r.time) out.set(r.key, 'date-time');
  }
  return out;
}

/** Datasets whose queryables a function instance keeps (by id, table and version: any write bumps it). */
const CACHE_SIZE = 200;
const cache = new Map<string, Queryables>();

/**
 * The queryables of `ds`, read once per dataset state in this function instance: every filtered request
 * and tile needs them (docs/cql2.md).
 */
export async function readQueryables(sql: Queryable, ds: Geodataset): Promise<Queryables> {
  const key = `${ds.id}:${ds.table}:${ds.version}`;
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const q = await catalogQueryables(sql, ds);
  cache.set(key, q);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  return q;
}

async function catalogQueryables(sql: Queryable, ds: Geodataset): Promise<Queryables> {
  const [row] = await sql`select property_types from geodatasets where id = ${ds.id}`;
  const counts = new Map<string, Map<string, number>>();
  for (const [key, byType] of Object.entries(
    (row?.property_types ?? {}) as Record<string, Record<string, number>>,
  ))
    counts.set(key, new Map(Object.entries(byType).map(([t, n]) => [t, Number(n)])));
  const out: Queryables = new Map();
  const names = [...counts.keys(), ...Object.keys(ds.fieldStats ?? {})].sort();
  for (const name of names) {
    const stats = ds.fieldStats?.[name];
    const byType = counts.get(name);
    let type: QueryableType = 'number';
    if (byType) type = ORDER.reduce((best, t) => ((byType.get(t) ?? 0) > (byType.get(best) ?? 0) ? t : best));
    const field: QueryableField = { path: counts.has(name) ? [name] : name.split('.'), type };
    if (stats && type === 'number') {
      field.minimum = stats.min;
      field.maximum = stats.max;
    }
    out.set(name, field);
  }
  const strings = [...out].filter(([n, f]) => f.type === 'string' && counts.has(n)).map(([n]) => n);
  for (const [name, format] of await stringFormats(sql, ds, strings)) out.get(name)!.format = format;
  for (const [name, field] of COLUMN_QUERYABLES) out.set(name, field);
  return out;
}

/** The queryables as a JSON Schema (OGC API - Features - Part 3, `application/schema+json`). */
export function queryablesSchema(ds: Geodataset, q: Queryables, id: string): Record<string, unknown> {
  const properties: Record<string, Record<string, unknown>> = {};
  const ordered = [...COLUMN_QUERYABLES.map(([n]) => n), ...[...q.keys()].filter((n) => !q.get(n)?.column)];
  for (const name of ordered) {
    const f = q.get(name)!;
    const p: Record<string, unknown> = { title: name };
    if (f.type) p.type = f.type;
    if (f.format) p.format = f.format;
    if (f.role) p['x-ogc-role'] = f.role;
    if (f.minimum !== undefined) p.minimum = f.minimum;
    if (f.maximum !== undefined) p.maximum = f.maximum;
    properties[name] = p;
  }
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: id,
    type: 'object',
    title: ds.name,
    description: `The properties of '${ds.name}' a CQL2 filter may name.`,
    properties,
    additionalProperties: false,
  };
}
