import { MVT } from './links.ts';

/**
 * Input and answer schemas of the OGC API – Tiles endpoints (functions/ogc/tiles*.ts, tileMatrixSet*.ts),
 * for the validator and the OpenAPI document. Path values stay strings: the handlers parse them and name
 * the field in a 400 (lib/ogc/tiles/tileAddress.ts).
 */

const string = { type: 'string' } as const;
const integer = { type: 'integer' } as const;
/** A collection or tile matrix set id in a path (as long as a collection id may be: lib/ogc/schemas.ts). */
const pathId = { type: 'string', maxLength: 128 } as const;
/** A tile matrix, row or column in a path: digits the handler parses (lib/ogc/tiles/tileAddress.ts). */
const tileIndex = { type: 'string', maxLength: 32 } as const;
const link = {
  type: 'object',
  required: ['href', 'rel'],
  properties: { href: string, rel: string, type: string, title: string, templated: { type: 'boolean' } },
} as const;
const links = { type: 'array', items: link } as const;
const point = { type: 'array', items: { type: 'number' }, minItems: 2, maxItems: 2 } as const;
const boundingBox = {
  type: 'object',
  required: ['lowerLeft', 'upperRight'],
  properties: { lowerLeft: point, upperRight: point, crs: string },
} as const;

/** `f`: the one JSON encoding of the metadata documents (ogc-client sends `f=json`). */
export const jsonFormatQuery = {
  type: 'object',
  properties: { f: { type: 'string', enum: ['json'] } },
} as const;
/** `f`: the one tile encoding; `v` is the dataset version the tileset's template carries (ignored). */
export const tileQuery = {
  type: 'object',
  properties: { f: { type: 'string', enum: ['mvt'] }, v: { type: 'string', maxLength: 64 } },
} as const;

export const tileMatrixSetPath = {
  type: 'object',
  properties: { tileMatrixSetId: pathId },
  required: ['tileMatrixSetId'],
} as const;
export const collectionPath = {
  type: 'object',
  properties: { collectionId: pathId },
  required: ['collectionId'],
} as const;
export const tilesetPath = {
  type: 'object',
  properties: { collectionId: pathId, tileMatrixSetId: pathId },
  required: ['collectionId', 'tileMatrixSetId'],
} as const;
export const tilePath = {
  type: 'object',
  properties: {
    collectionId: pathId,
    tileMatrixSetId: pathId,
    tileMatrix: tileIndex,
    tileRow: tileIndex,
    tileCol: tileIndex,
  },
  required: ['collectionId', 'tileMatrixSetId', 'tileMatrix', 'tileRow', 'tileCol'],
} as const;

const tileMatrix = {
  type: 'object',
  required: [
    'id',
    'scaleDenominator',
    'cellSize',
    'pointOfOrigin',
    'tileWidth',
    'tileHeight',
    'matrixWidth',
    'matrixHeight',
  ],
  properties: {
    id: string,
    scaleDenominator: { type: 'number' },
    cellSize: { type: 'number' },
    cornerOfOrigin: { enum: ['topLeft', 'bottomLeft'] },
    pointOfOrigin: point,
    tileWidth: integer,
    tileHeight: integer,
    matrixWidth: integer,
    matrixHeight: integer,
  },
} as const;

/** The TMS 2.0 tile matrix set definition. */
export const tileMatrixSetAnswer = {
  type: 'object',
  required: ['id', 'uri', 'crs', 'tileMatrices'],
  properties: {
    id: string,
    title: string,
    uri: string,
    crs: string,
    boundingBox,
    tileMatrices: { type: 'array', items: tileMatrix },
    links,
  },
} as const;

export const tileMatrixSetsAnswer = {
  type: 'object',
  required: ['tileMatrixSets', 'links'],
  properties: {
    tileMatrixSets: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'uri', 'links'],
        properties: { id: string, title: string, uri: string, links },
      },
    },
    links,
  },
} as const;

const tilesetSummary = {
  type: 'object',
  required: ['dataType', 'crs', 'tileMatrixSetURI', 'links'],
  properties: {
    title: string,
    dataType: { enum: ['map', 'vector', 'coverage'] },
    crs: string,
    tileMatrixSetURI: string,
    links,
  },
} as const;

export const tilesetListAnswer = {
  type: 'object',
  required: ['tilesets', 'links'],
  properties: { tilesets: { type: 'array', items: tilesetSummary }, links },
} as const;

const limits = {
  type: 'object',
  required: ['tileMatrix', 'minTileRow', 'maxTileRow', 'minTileCol', 'maxTileCol'],
  properties: {
    tileMatrix: string,
    minTileRow: integer,
    maxTileRow: integer,
    minTileCol: integer,
    maxTileCol: integer,
  },
} as const;

/** The TMS 2.0 tileset metadata of one collection's vector tiles. */
export const tilesetAnswer = {
  type: 'object',
  required: ['dataType', 'crs', 'tileMatrixSetURI', 'links', 'layers'],
  properties: {
    ...tilesetSummary.properties,
    description: string,
    mediaTypes: { type: 'array', items: string },
    version: string,
    updated: string,
    boundingBox,
    tileMatrixSetLimits: { type: 'array', items: limits },
    layers: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['id', 'dataType', 'propertiesSchema'],
        properties: {
          id: string,
          title: string,
          dataType: { const: 'vector' },
          minTileMatrix: string,
          maxTileMatrix: string,
          boundingBox,
          propertiesSchema: { type: 'object', required: ['type', 'properties'] },
          links,
        },
      },
    },
  },
} as const;

/** The answers of a tile request (docs/ogc-tiles.md, docs/tiles.md "Caching"). */
export const tileAnswers = {
  200: {
    description: 'A Mapbox vector tile (MVT 2.1) with ETag and Cache-Control.',
    content: { [MVT]: { type: 'string', contentMediaType: MVT } },
  },
  204: { description: 'An empty tile inside the tileset (with ETag and Cache-Control).' },
  304: { description: 'The tile has not changed (If-None-Match).' },
};
