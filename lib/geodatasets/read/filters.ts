import { type Fragment, sqlIdentifier } from '#lib/db/fragments.ts';
import type { Queryable } from '#lib/db/index.ts';
import { badRequest } from '#lib/errors.ts';
import { type Geodataset, sqlTable } from '../catalog.ts';
import { sqlNumeric } from '../numeric.ts';
import { sqlColumn, sqlPathValues, sqlPropPath } from './columns.ts';
import type { PropertyFilter, ReadFilters } from './filterParams.ts';
import { sqlTimeWindow } from './timeSql.ts';

export { sqlColumn, sqlPropPath, sqlProps } from './columns.ts';
export * from './filterParams.ts';
export { resolveReadFilters, sqlJsonTime, sqlTimeWindow } from './timeSql.ts';

/**
 * The read filters shared by `GET /get` (geojson and mvt), intersect and aggregations: pure parsing of the
 * query string (`parseReadFilters`, 400 naming the parameter) and SQL fragment builders (`sqlWhere`).
 * Every value is a bound parameter; property keys are bound as `text[]` paths (`properties #> $1`); the
 * only identifiers spliced in are our own table name and a validated alias.
 *
 * noDuplicates is part of `sqlWhere`: the kept row of each group is chosen over the whole matched set
 * (a correlated `max(id) ... group by` subquery), so it does not depend on paging or on a tile envelope.
 *
 * A custom `format` is a `to_timestamp` pattern; call `resolveReadFilters` (timeSql.ts) once before
 * querying to have the request's times parsed by the database and refused (400) when the pattern parses
 * nothing sensible. Without it, `sqlWhere` still works (the pattern is applied inline, unchecked).
 * The column references are columns.ts; the time window timeSql.ts.
 */

const EARTH_RADIUS = 6371008.8;

/** `ST_DWithin` on the sphere, with a conservative degree envelope first so the GiST index is used. */
function sqlCircle(
  sql: Queryable,
  c: { lat: number; lng: number; radius: number },
  geom: Fragment,
): Fragment {
  const center = sql`ST_SetSRID(ST_MakePoint(${c.lng}::float8, ${c.lat}::float8), 4326)`;
  const exact = sql`ST_DWithin((${geom})::geography, (${center})::geography, ${c.radius}::float8, false)`;
  const dLat = ((c.radius / EARTH_RADIUS) * 180) / Math.PI;
  const lat0 = c.lat - dLat * 1.01 - 1e-9;
  const lat1 = c.lat + dLat * 1.01 + 1e-9;
  if (lat0 <= -89 || lat1 >= 89)
    return sql`(${geom} && ST_MakeEnvelope(-180, ${Math.max(lat0, -90)}::float8, 180, ${Math.min(lat1, 90)}::float8, 4326) and ${exact})`;
  const maxAbsLat = Math.max(Math.abs(lat0), Math.abs(lat1));
  const dLng = (dLat * 1.01) / Math.cos((maxAbsLat * Math.PI) / 180) + 1e-9;
  if (c.lng - dLng < -180 || c.lng + dLng > 180 || dLng >= 180) {
    return sql`(${geom} && ST_MakeEnvelope(-180, ${lat0}::float8, 180, ${lat1}::float8, 4326) and ${exact})`;
  }
  return sql`(${geom} && ST_MakeEnvelope(${c.lng - dLng}::float8, ${lat0}::float8, ${c.lng + dLng}::float8, ${lat1}::float8, 4326) and ${exact})`;
}

const INLINE_NUMBER_FILTERS = 2;
const isNumberFilter = (pf: PropertyFilter) => pf.type === 'number' && pf.op !== 'like';

/**
 * Every number filter of a read in one condition: the numeric rule (lib/geodatasets/numeric.ts) written
 * once over the filters' paths (each a bound `text[]`), as `stats` reads its fields (featureProps.ts), so
 * 50 filters stay far under the Data API's 65,536 characters per statement (about 30 characters of SQL
 * and one path each, where a rule per filter took about 3,000). A row passes when every comparison is
 * true; a value that is no number fails, as before.
 */
function sqlNumberFilters(sql: Queryable, ds: Geodataset, pfs: PropertyFilter[], alias?: string): Fragment {
  const values = sqlPathValues(
    sql,
    ds,
    pfs.map((pf) => pf.path),
    alias,
  );
  const n = sqlIdentifier(sql, 'q.n');
  const tests = pfs
    .map((pf, i) => {
      const nums = pf.values as number[];
      const test =
        pf.op === 'in'
          ? sql`${n} = any(${nums}::float8[])`
          : pf.op === '='
            ? sql`${n} = ${nums[0]}::float8`
            : pf.op === '>'
              ? sql`${n} > ${nums[0]}::float8`
              : sql`${n} < ${nums[0]}::float8`;
      return sql`when ${i + 1}::int then ${test}`;
    })
    .reduce((a, t) => sql`${a} ${t}`);
  return sql`(select bool_and(coalesce(case q.i ${tests} end, false)) from (select p.i,
      ${sqlNumeric(sql, sqlIdentifier(sql, 'p.j'))} as n from ${values} p) q)`;
}

function sqlPropertyFilter(sql: Queryable, ds: Geodataset, pf: PropertyFilter, alias?: string): Fragment {
  const v = sqlPropPath(sql, ds, pf.path, alias);
  if (pf.op === 'like') return sql`strpos(lower(${v} #>> '{}'), lower(${String(pf.values[0])}::text)) > 0`;
  if (pf.type === 'number') {
    const n = sqlNumeric(sql, v);
    const nums = pf.values as number[];
    if (pf.op === 'in') return sql`${n} = any(${nums}::float8[])`;
    if (pf.op === '=') return sql`${n} = ${nums[0]}::float8`;
    if (pf.op === '>') return sql`${n} > ${nums[0]}::float8`;
    return sql`${n} < ${nums[0]}::float8`;
  }
  // Text of the value: strings without quotes, numbers and booleans as written; objects as JSON text.
  const t = sql`(${v} #>> '{}')`;
  const texts = pf.values as string[];
  if (pf.op === 'in') return sql`${t} = any(${texts}::text[])`;
  if (pf.op === '=') return sql`${t} = ${texts[0]}::text`;
  if (pf.op === '>') return sql`${t} > ${texts[0]}::text collate "C"`;
  return sql`${t} < ${texts[0]}::text collate "C"`;
}

function and(sql: Queryable, parts: Fragment[]): Fragment | undefined {
  if (parts.length === 0) return undefined;
  return parts.reduce((acc, p) => sql`${acc} and ${p}`);
}

/**
 * The grouping key for noDuplicates and stats (docs/geodatasets-read.md, "noDuplicates"): `group_id` when
 * the dataset has a groupIdProp (the rows without one are one group, as MMGIS's `DISTINCT ON (group_id)`
 * and its `stats` make them), else the geometry's exact bytes.
 */
export function sqlGroupKey(sql: Queryable, ds: Geodataset, alias?: string): Fragment {
  if (ds.groupIdProp) return sqlColumn(sql, 'group_id', alias);
  return sql`ST_AsEWKB(${sqlColumn(sql, 'geom', alias)})`;
}

/** Every filter but noDuplicates. */
function sqlMatch(sql: Queryable, ds: Geodataset, f: ReadFilters, alias?: string): Fragment | undefined {
  const geom = sqlColumn(sql, 'geom', alias);
  const parts: Fragment[] = [];
  if (f.id !== undefined) parts.push(sql`${sqlColumn(sql, 'id', alias)} = ${f.id}::bigint`);
  if (f.bbox) {
    const b = f.bbox;
    parts.push(
      sql`ST_Intersects(${geom}, ST_MakeEnvelope(${b.minx}::float8, ${b.miny}::float8, ${b.maxx}::float8, ${b.maxy}::float8, 4326))`,
    );
  }
  if (f.groupId !== undefined) parts.push(sql`${sqlColumn(sql, 'group_id', alias)} = ${f.groupId}::text`);
  const time = sqlTimeWindow(sql, ds, f, alias);
  if (time) parts.push(time);
  if (f.circle) parts.push(sqlCircle(sql, f.circle, geom));
  // One or two number filters (the MMGIS client's usual) keep their own rule inline, the quicker plan;
  // more share one rule, so the statement's length stays bounded.
  const numbers = f.filters.filter(isNumberFilter);
  const shared = numbers.length > INLINE_NUMBER_FILTERS;
  if (shared) parts.push(sqlNumberFilters(sql, ds, numbers, alias));
  for (const pf of f.filters)
    if (!shared || !isNumberFilter(pf)) parts.push(sqlPropertyFilter(sql, ds, pf, alias));
  if (f.intersect !== undefined) {
    parts.push(sql`ST_Intersects(${geom}, ST_SetSRID(ST_GeomFromGeoJSON(${f.intersect}::text), 4326))`);
  }
  if (f.cql2) parts.push(f.cql2(alias));
  return and(sql, parts);
}

/**
 * The WHERE condition of a read: `where ${sqlWhere(sql, ds, f, 't')}`; `true` when nothing filters.
 * With `noDuplicates`, only the highest id of each group (see `sqlGroupKey`) among the matched rows passes.
 * Set `noDuplicates: false` to get the plain matched set (e.g. for stats).
 */
export function sqlWhere(sql: Queryable, ds: Geodataset, f: ReadFilters, alias?: string): Fragment {
  const match = sqlMatch(sql, ds, f, alias);
  if (!f.noDuplicates) return match ?? sql`true`;
  const table = sqlTable(sql, ds);
  const inner = sqlMatch(sql, ds, f, 'd') ?? sql`true`;
  const id = sqlColumn(sql, 'id', alias);
  const dedup = sql`${id} in (select max(d.id) from ${table} d where ${inner} group by ${sqlGroupKey(sql, ds, 'd')})`;
  return match ? sql`${match} and ${dedup}` : dedup;
}

/**
 * Runs a read query, turning the database's refusal of per-feature data (a time property that does not
 * parse with the given `format`, an out-of-range date) into 400 instead of 500.
 */
export async function withReadErrors<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    const code = (e as { code?: string })?.code;
    if (code && (code.startsWith('22') || code === '2201B')) {
      throw badRequest(
        `A feature value could not be read with the request's filters (${(e as Error).message}); check 'format', 'startProp' and 'endProp'.`,
      );
    }
    throw e;
  }
}
