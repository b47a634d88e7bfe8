import type { Queryable } from '#lib/db/index.ts';
import { type Geodataset, sqlTable } from '#lib/geodatasets/catalog.ts';
import type { FieldType } from '#lib/geodatasets/read/fieldTypes.ts';
import { parseReadFilters } from '#lib/geodatasets/read/filters.ts';
import { TILE_PARAMS } from '#lib/geodatasets/read/getParams.ts';
import type { ReadFilterInput, SourceInput } from '#lib/geodatasets/read/readParams.ts';
import { THINNED_ATTRIBUTE } from '#lib/geodatasets/tiles/tileSql.ts';

/** Web Mercator's latitude limit: TileJSON bounds are clamped to the part tiles can show. */
const MERC_LAT = 85.0511287798066;
/**
 * The declared tile parameters (lib/geodatasets/read/getParams.ts) a TileJSON request carries into its
 * tiles URL: the filters and `_source`; the address is the template's and `v` the dataset's version.
 */
const CARRIED = TILE_PARAMS.filter((k) => !['x', 'y', 'z', 'type', 'v'].includes(k));

/** The TileJSON request's declared parameters (readFilterParams and sourceParams). */
export type TileJsonInput = ReadFilterInput & SourceInput;

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
 * the declared filters and `_source` given to the TileJSON request are validated and carried into the template.
 * `full_detail_zoom` (top level and on the layer): the zoom from which every feature is in every tile of
 * the layer (lib/geodatasets/rank.ts, `fullDetailZoom`); below it a tile leaves out only features that share
 * a pixel with one it keeps (docs/tiles.md, "TileJSON"). `_thinned` is among the fields: a thinned tile's
 * features carry it.
 *
 * @example toTileJson(ds, 'https://host', {filters: 'kind+=+string+a'}, bounds, fields)
 */
export function toTileJson(
  ds: Geodataset,
  base: string,
  query: TileJsonInput,
  bounds: [number, number, number, number],
  fields: Record<string, FieldType>,
  zooms: { minzoom: number; maxzoom: number } = { minzoom: 0, maxzoom: 22 },
  fullDetailZoom?: number,
) {
  parseReadFilters(query); // 400 for a bad filter, before it ends up in every tile URL
  const params = new URLSearchParams();
  params.set('type', 'mvt');
  for (const k of [...CARRIED].sort()) {
    const v = (query as Record<string, unknown>)[k];
    if (v === undefined || v === null || v === '') continue;
    for (const one of Array.isArray(v) ? v : [v]) params.append(k, String(one));
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
    ...(fullDetailZoom === undefined ? {} : { full_detail_zoom: fullDetailZoom }),
    vector_layers: [
      {
        id: ds.name,
        description: ds.filename ?? '',
        minzoom: zooms.minzoom,
        maxzoom: zooms.maxzoom,
        ...(fullDetailZoom === undefined ? {} : { full_detail_zoom: fullDetailZoom }),
        fields: { ...fields, [THINNED_ATTRIBUTE]: 'Boolean' as FieldType },
      },
    ],
  };
}
