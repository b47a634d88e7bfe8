import type { Geodataset } from '#lib/geodatasets/catalog.ts';
import { type JsonType, majorityType } from '#lib/geodatasets/read/fieldTypes.ts';
import { MAX_ZOOM } from '#lib/geodatasets/read/tileParams.ts';
import { collectionUrl, JSON_TYPE, MVT, REL_GEODATA, REL_TILING_SCHEME, type TilesLink } from './links.ts';
import { tileMatrixSetLimits } from './tileAddress.ts';
import { CRS84, EPSG_3857, WEB_MERCATOR_QUAD, WEB_MERCATOR_QUAD_URI } from './tileMatrixSet.ts';

type Bbox = readonly [number, number, number, number];
/** Per top-level property, the count of its values of each JSON type (the catalog's, lib/geodatasets/extents.ts). */
type PropertyTypes = Record<string, Record<string, number>>;

/** `<base>/collections/<name>/tiles/WebMercatorQuad`. */
export function tilesetUrl(base: string, name: string): string {
  return `${collectionUrl(base, name)}/tiles/${WEB_MERCATOR_QUAD}`;
}

/**
 * The templated tile URL: `{tileMatrix}/{tileRow}/{tileCol}` (z/y/x) plus the dataset's `version` as `v`,
 * so a write changes the URL and no cache (the gateway's included) serves a tile of the old data.
 */
export function tileTemplate(base: string, ds: Pick<Geodataset, 'name' | 'version'>): string {
  return `${tilesetUrl(base, ds.name)}/{tileMatrix}/{tileRow}/{tileCol}?v=${ds.version}`;
}

function tilingSchemeLink(base: string): TilesLink {
  return {
    href: `${base}/tileMatrixSets/${WEB_MERCATOR_QUAD}`,
    rel: REL_TILING_SCHEME,
    type: JSON_TYPE,
    title: 'The tile matrix set definition',
  };
}

/** `GET …/collections/{name}/tiles`: the list of the collection's tilesets (one, WebMercatorQuad). */
export function toTilesetList(base: string, ds: Geodataset) {
  return {
    links: [
      { href: `${collectionUrl(base, ds.name)}/tiles`, rel: 'self', type: JSON_TYPE, title: 'This list' },
    ],
    tilesets: [
      {
        title: `${ds.name} (${WEB_MERCATOR_QUAD})`,
        dataType: 'vector',
        crs: EPSG_3857,
        tileMatrixSetURI: WEB_MERCATOR_QUAD_URI,
        links: [
          { href: tilesetUrl(base, ds.name), rel: 'self', type: JSON_TYPE, title: 'The tileset' },
          tilingSchemeLink(base),
        ],
      },
    ],
  };
}

/**
 * Each tile attribute's JSON Schema type: the type most of the property's values hold (ties: number,
 * string, boolean, the rule of lib/geodatasets/read/fieldTypes.ts); objects and arrays are `string`, as
 * the tiles carry them as JSON text. Counted over every feature by the writes, so no query is needed.
 */
export function tileFieldTypes(types: PropertyTypes | null): Record<string, { type: string }> {
  const out: Record<string, { type: string }> = {};
  for (const key of Object.keys(types ?? {}).sort()) {
    const t = majorityType((k: JsonType) => Number(types![key][k] ?? 0));
    out[key] = { type: t === 'number' || t === 'boolean' ? t : 'string' };
  }
  return out;
}

/**
 * `GET …/collections/{name}/tiles/WebMercatorQuad`: the tileset metadata (TMS 2.0 JSON). One layer named
 * after the dataset (the MVT layer's name) whose `propertiesSchema` gives each tile attribute's type
 * (`tileFieldTypes`); with the dataset's lon/lat extent, its `boundingBox` and `tileMatrixSetLimits`.
 */
export function toTileset(base: string, ds: Geodataset, types: PropertyTypes | null, bbox: Bbox | null) {
  const collection = collectionUrl(base, ds.name);
  const limits = tileMatrixSetLimits(bbox);
  const boundingBox = bbox
    ? { lowerLeft: [bbox[0], bbox[1]], upperRight: [bbox[2], bbox[3]], crs: CRS84 }
    : undefined;
  const properties = tileFieldTypes(types);
  return {
    title: `${ds.name} (${WEB_MERCATOR_QUAD})`,
    description: `Vector tiles of geodataset '${ds.name}': one layer named '${ds.name}', feature id = internal id.`,
    dataType: 'vector',
    crs: EPSG_3857,
    tileMatrixSetURI: WEB_MERCATOR_QUAD_URI,
    mediaTypes: [MVT],
    version: String(ds.version),
    updated: ds.updatedAt,
    links: [
      { href: tilesetUrl(base, ds.name), rel: 'self', type: JSON_TYPE, title: 'This tileset' },
      tilingSchemeLink(base),
      { href: tileTemplate(base, ds), rel: 'item', type: MVT, title: 'Vector tiles', templated: true },
      { href: collection, rel: REL_GEODATA, type: JSON_TYPE, title: 'The collection' },
    ],
    ...(limits ? { tileMatrixSetLimits: limits } : {}),
    ...(boundingBox ? { boundingBox } : {}),
    layers: [
      {
        id: ds.name,
        title: ds.name,
        dataType: 'vector',
        minTileMatrix: '0',
        maxTileMatrix: String(MAX_ZOOM),
        ...(boundingBox ? { boundingBox } : {}),
        propertiesSchema: { type: 'object', properties },
        links: [{ href: collection, rel: REL_GEODATA, type: JSON_TYPE, title: 'The collection' }],
      },
    ],
  };
}
