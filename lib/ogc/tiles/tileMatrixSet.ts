import { notFound } from '#lib/errors.ts';
import { MAX_ZOOM } from '#lib/geodatasets/read/tileParams.ts';

/**
 * WebMercatorQuad, the one tile matrix set of our tiles (docs/ogc-tiles.md): the OGC 2D Tile Matrix Set
 * standard 2.0's definition (Annex D, "Google Maps Compatible for the World"), the grid `ST_TileEnvelope`
 * cuts: EPSG:3857, origin top left, 256-pixel tiles, 2^z × 2^z tiles at tile matrix z, here 0 to 24
 * (the tile address limit of docs/tiles.md).
 */
export const WEB_MERCATOR_QUAD = 'WebMercatorQuad';
export const WEB_MERCATOR_QUAD_URI = 'http://www.opengis.net/def/tilematrixset/OGC/1.0/WebMercatorQuad';
export const EPSG_3857 = 'http://www.opengis.net/def/crs/EPSG/0/3857';
export const CRS84 = 'http://www.opengis.net/def/crs/OGC/1.3/CRS84';

/** Half the side of the Web Mercator square in metres (π · 6378137). */
const HALF_WORLD = Math.PI * 6378137;
/** The standard's pixel size: 0.28 mm. */
const PIXEL_METRES = 0.00028;
const TILE_PIXELS = 256;

export interface TileMatrix {
  id: string;
  scaleDenominator: number;
  cellSize: number;
  cornerOfOrigin: 'topLeft';
  pointOfOrigin: [number, number];
  tileWidth: number;
  tileHeight: number;
  matrixWidth: number;
  matrixHeight: number;
}

/** Tile matrix `z`: its cell size is the world's width over 256 · 2^z pixels. */
export function tileMatrix(z: number): TileMatrix {
  const n = 2 ** z;
  const cellSize = (2 * HALF_WORLD) / (TILE_PIXELS * n);
  return {
    id: String(z),
    scaleDenominator: cellSize / PIXEL_METRES,
    cellSize,
    cornerOfOrigin: 'topLeft',
    pointOfOrigin: [-HALF_WORLD, HALF_WORLD],
    tileWidth: TILE_PIXELS,
    tileHeight: TILE_PIXELS,
    matrixWidth: n,
    matrixHeight: n,
  };
}

/** The tile matrix set definition (TMS 2.0 JSON), with a `self` link when `url` is given. */
export function toWebMercatorQuad(url?: string) {
  return {
    id: WEB_MERCATOR_QUAD,
    title: 'Google Maps Compatible for the World',
    uri: WEB_MERCATOR_QUAD_URI,
    crs: EPSG_3857,
    orderedAxes: ['X', 'Y'],
    boundingBox: {
      lowerLeft: [-HALF_WORLD, -HALF_WORLD],
      upperRight: [HALF_WORLD, HALF_WORLD],
      crs: EPSG_3857,
    },
    wellKnownScaleSet: 'http://www.opengis.net/def/wkss/OGC/1.0/GoogleMapsCompatible',
    tileMatrices: Array.from({ length: MAX_ZOOM + 1 }, (_, z) => tileMatrix(z)),
    ...(url
      ? { links: [{ rel: 'self', href: url, type: 'application/json', title: 'This definition' }] }
      : {}),
  };
}

/** The id a path names, or 404: only WebMercatorQuad is offered. */
export function requireTileMatrixSet(id: string): typeof WEB_MERCATOR_QUAD {
  if (id !== WEB_MERCATOR_QUAD)
    throw notFound(`Tile matrix set '${id}' is not offered; the only one is '${WEB_MERCATOR_QUAD}'.`);
  return WEB_MERCATOR_QUAD;
}

/** `GET /api/ogc/tileMatrixSets`: the tile matrix sets on offer, each linking to its definition. */
export function toTileMatrixSetList(base: string) {
  const url = `${base}/tileMatrixSets`;
  return {
    tileMatrixSets: [
      {
        id: WEB_MERCATOR_QUAD,
        title: 'Google Maps Compatible for the World',
        uri: WEB_MERCATOR_QUAD_URI,
        links: [
          {
            rel: 'self',
            href: `${url}/${WEB_MERCATOR_QUAD}`,
            type: 'application/json',
            title: 'The definition',
          },
        ],
      },
    ],
    links: [{ rel: 'self', href: url, type: 'application/json', title: 'This list' }],
  };
}
