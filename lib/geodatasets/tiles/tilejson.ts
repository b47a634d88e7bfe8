import type { Queryable } from '#lib/db/index.ts';
import { type Geodataset, sqlTable } from '#lib/geodatasets/catalog.ts';
import { parseReadFilters } from '#lib/geodatasets/read/filters.ts';

/** Web Mercator's latitude limit: TileJSON bounds are clamped to the part tiles can show. */
const MERC_LAT = 85.0511287798066;
/** Parameters of the TileJSON request that are not carried into the tile URLs. */
const NOT_CARRIED = new Set([
  'x',
  'y',
  'z',
  'type',
  'v',
  'layer',
  'name',
  'stats',
  'limit',
  'offset',
  'limited',
]);

export type FieldType = 'Number' | 'String' | 'Boolean';

/**
 * Attribute names and types over a sample of rows (the most common non-null JSON type of each key): the
 * top-level keys, or with `_source` the given paths (named by their dotted path, as in the tiles).
 */
export async function readFieldTypes(
  sql: Queryable,
  ds: Geodataset,
  source?: string[][],
  sample = 1000,
): Promise<Record<string, FieldType>> {
  const table = sqlTable(sql, ds);
  const props = ds.propertiesType === 'json' ? sql`s.properties::jsonb` : sql`s.properties`;
  const pairs = source?.length
    ? source
        .map((p) => sql`(${p.join('.')}::text, ${props} #> ${p}::text[])`)
        .reduce((a, b) => sql`${a}, ${b}`)
    : undefined;
  const entries = pairs
    ? sql`(values ${pairs}) as e(key, value)`
    : sql`jsonb_each(case when jsonb_typeof(${props}) = 'object' then ${props} else '{}'::jsonb end) e`;
  const rows = await sql`
    select e.key, jsonb_typeof(e.value) as t, count(*)::int as n
    from (select properties from ${table} order by id limit ${sample}::int) s, lateral ${entries}
    where e.value is not null and jsonb_typeof(e.value) <> 'null'
    group by 1, 2
    order by 1, 3 desc, 2`;
  const out: Record<string, FieldType> = {};
  for (const p of source ?? []) out[p.join('.')] = 'String';
  const seen = new Set<string>();
  for (const r of rows) {
    if (seen.has(r.key)) continue;
    seen.add(r.key);
    out[r.key as string] = r.t === 'number' ? 'Number' : r.t === 'boolean' ? 'Boolean' : 'String';
  }
  return out;
}

/** The dataset's extent in lon/lat, clamped to Web Mercator's; the world when the dataset is empty. */
export async function readBounds(sql: Queryable, ds: Geodataset): Promise<[number, number, number, number]> {
  const table = sqlTable(sql, ds);
  const [row] = await sql`
    select ST_XMin(e) as minx, ST_YMin(e) as miny, ST_XMax(e) as maxx, ST_YMax(e) as maxy
    from (select ST_Extent(geom)::geometry as e from ${table}) s`;
  if (!row || row.minx === null) return [-180, -MERC_LAT, 180, MERC_LAT];
  const clampLat = (v: number) => Math.max(-MERC_LAT, Math.min(MERC_LAT, v));
  const clampLon = (v: number) => Math.max(-180, Math.min(180, v));
  return [clampLon(row.minx), clampLat(row.miny), clampLon(row.maxx), clampLat(row.maxy)];
}

/**
 * TileJSON 3.0.0 for one dataset (MapLibre: `{type:'vector', url}`): one tiles template whose query
 * carries the dataset `version` (`v`), so a write changes the URL and no cache serves an old tile;
 * filters given to the TileJSON request are validated and carried into the template.
 *
 * @example toTileJson(ds, 'https://host', {filters: 'kind+=+string+a'}, bounds, fields)
 */
export function toTileJson(
  ds: Geodataset,
  base: string,
  query: Record<string, unknown>,
  bounds: [number, number, number, number],
  fields: Record<string, FieldType>,
  zooms: { minzoom: number; maxzoom: number } = { minzoom: 0, maxzoom: 22 },
) {
  parseReadFilters(query); // 400 for a bad filter, before it ends up in every tile URL
  const params = new URLSearchParams();
  params.set('type', 'mvt');
  for (const k of Object.keys(query).sort()) {
    if (NOT_CARRIED.has(k) || query[k] === undefined || query[k] === null) continue;
    params.set(k, String(query[k]));
  }
  params.set('v', String(ds.version));
  const q = params.toString().replace(/%7B/g, '{').replace(/%7D/g, '}');
  const tile = `${base}/api/geodatasets/get/${encodeURIComponent(ds.name)}?${q}&x={x}&y={y}&z={z}`;
  const center: [number, number, number] = [
    (bounds[0] + bounds[2]) / 2,
    (bounds[1] + bounds[3]) / 2,
    zooms.minzoom,
  ];
  return {
    tilejson: '3.0.0',
    name: ds.name,
    version: '1.0.0',
    scheme: 'xyz',
    tiles: [tile],
    minzoom: zooms.minzoom,
    maxzoom: zooms.maxzoom,
    bounds,
    center,
    vector_layers: [
      {
        id: ds.name,
        description: ds.filename ?? '',
        minzoom: zooms.minzoom,
        maxzoom: zooms.maxzoom,
        fields,
      },
    ],
  };
}
