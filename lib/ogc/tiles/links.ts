/** Media types and link relations of the OGC API – Tiles documents (docs/ogc-tiles.md). */
export const MVT = 'application/vnd.mapbox-vector-tile';
export const JSON_TYPE = 'application/json';
export const REL_TILING_SCHEMES = 'http://www.opengis.net/def/rel/ogc/1.0/tiling-schemes';
export const REL_TILING_SCHEME = 'http://www.opengis.net/def/rel/ogc/1.0/tiling-scheme';
export const REL_TILESETS_VECTOR = 'http://www.opengis.net/def/rel/ogc/1.0/tilesets-vector';
export const REL_GEODATA = 'http://www.opengis.net/def/rel/ogc/1.0/geodata';

export interface TilesLink {
  href: string;
  rel: string;
  type?: string;
  title?: string;
  templated?: boolean;
}

/** `<base>/collections/<name>`: `base` is the API's landing page URL (`…/api/ogc`). */
export function collectionUrl(base: string, name: string): string {
  return `${base}/collections/${encodeURIComponent(name)}`;
}

/** The landing page's link to the tile matrix sets (ogc-client and GDAL find them by this relation). */
export function tilesLandingLinks(base: string): TilesLink[] {
  return [
    { href: `${base}/tileMatrixSets`, rel: REL_TILING_SCHEMES, type: JSON_TYPE, title: 'Tile matrix sets' },
  ];
}

/** A collection's link to its vector tilesets (`/req/geodata-tilesets/desc-links`). */
export function collectionTilesLinks(base: string, name: string): TilesLink[] {
  return [
    {
      href: `${collectionUrl(base, name)}/tiles`,
      rel: REL_TILESETS_VECTOR,
      type: JSON_TYPE,
      title: 'Vector tilesets of this collection',
    },
  ];
}
