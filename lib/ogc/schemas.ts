import { CQL2_LIMITS } from '#lib/cql2/limits.ts';
/** The declared inputs and answer shapes of the OGC API endpoints (functions/ogc/*, docs/ogc.md). */

export const formatParam = {
  type: 'string',
  enum: ['json', 'html'],
  description: 'json (the default) or html; without it the Accept header decides.',
} as const;

export const crsParam = {
  type: 'string',
  maxLength: 200,
  description: 'The CRS of the answer: CRS84 (default), EPSG:4326 (lat/lon) or EPSG:3857, as URIs.',
} as const;

/** `?f=` alone (landing page, conformance, collections, collection, API definition). */
export const formatQuery = {
  type: 'object',
  properties: { f: formatParam },
} as const;

export const collectionPath = {
  type: 'object',
  required: ['collectionId'],
  properties: {
    collectionId: { type: 'string', minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9_.-]+$' },
  },
} as const;

export const featurePath = {
  type: 'object',
  required: ['collectionId', 'featureId'],
  properties: {
    collectionId: collectionPath.properties.collectionId,
    // Ids are integers; any other short text is simply an unknown feature (404).
    featureId: { type: 'string', minLength: 1, maxLength: 64 },
  },
} as const;

const cursor = (which: string) =>
  ({
    type: 'integer',
    minimum: 0,
    maximum: 9007199254740991,
    description: `Keyset paging: only features whose id is ${which} this one (set by the next/prev links).`,
  }) as const;

/**
 * The items' query parameters. Any other parameter is a property filter `name=value` on a queryable of the
 * collection (listed per collection in the API definition); the handler refuses unknown names (400).
 * The CQL2 `filter`, `filter-lang` and `filter-crs` parameters are those of docs/cql2.md.
 */
export const itemsQuery = {
  type: 'object',
  properties: {
    f: formatParam,
    // No `maximum` here: a larger limit is lowered, not refused (docs/ogc.md, "Items"); the OGC API
    // definition states the maximum (lib/ogc/apiDocument.ts).
    limit: {
      type: 'integer',
      minimum: 1,
      maximum: 9007199254740991,
      default: 10,
      description: 'Features per page (default 10); above 10000, 10000.',
    },
    bbox: {
      type: 'string',
      maxLength: 300,
      description: 'minx,miny,maxx,maxy (or 6 numbers with heights) in bbox-crs (default CRS84).',
    },
    'bbox-crs': { ...crsParam, description: 'The CRS of bbox (default CRS84).' },
    crs: crsParam,
    datetime: {
      type: 'string',
      maxLength: 100,
      description:
        'An RFC 3339 instant or interval (start/end, either open as ..) on the features’ start/end times.',
    },
    after: cursor('above'),
    before: cursor('below'),
    filter: {
      type: 'string',
      maxLength: CQL2_LIMITS.maxLength,
      description: 'A CQL2 filter (docs/cql2.md) on the queryables, in filter-lang.',
    },
    'filter-lang': { type: 'string', enum: ['cql2-text', 'cql2-json'] },
    'filter-crs': {
      type: 'string',
      maxLength: 100,
      description: 'The CRS of the filter’s geometries (default CRS84).',
    },
    offset: {
      type: 'integer',
      minimum: 0,
      maximum: 10_000_000,
      description:
        'Features to skip before the page (as clients that page by offset send, e.g. ogc-client); the next and prev links page by key.',
    },
  },
  additionalProperties: { type: 'string', maxLength: 256 },
  maxProperties: 40,
} as const;

export const itemQuery = {
  type: 'object',
  properties: { f: formatParam, crs: crsParam },
} as const;

const link = {
  type: 'object',
  required: ['href', 'rel'],
  properties: {
    href: { type: 'string' },
    rel: { type: 'string' },
    type: { type: 'string' },
    title: { type: 'string' },
  },
} as const;
const links = { type: 'array', items: link } as const;
const html = { type: 'string', contentMediaType: 'text/html' } as const;

export const landingAnswer = {
  200: {
    description: 'The landing page.',
    content: {
      'application/json': {
        type: 'object',
        required: ['links'],
        properties: { title: { type: 'string' }, links },
      },
      'text/html': html,
    },
  },
} as const;

export const conformanceAnswer = {
  200: {
    description: 'The conformance classes.',
    content: {
      'application/json': {
        type: 'object',
        required: ['conformsTo'],
        properties: { conformsTo: { type: 'array', items: { type: 'string' } } },
      },
      'text/html': html,
    },
  },
} as const;

const collection = {
  type: 'object',
  required: ['id', 'links'],
  properties: {
    id: { type: 'string' },
    title: { type: 'string' },
    description: { type: 'string' },
    links,
    extent: { type: 'object' },
    itemType: { type: 'string' },
    crs: { type: 'array', items: { type: 'string' } },
    storageCrs: { type: 'string' },
  },
} as const;

export const collectionsAnswer = {
  200: {
    description: 'The collections the caller may read.',
    content: {
      'application/json': {
        type: 'object',
        required: ['collections', 'links'],
        properties: {
          links,
          collections: { type: 'array', items: collection },
          crs: { type: 'array', items: { type: 'string' } },
        },
      },
      'text/html': html,
    },
  },
} as const;

export const collectionAnswer = {
  200: { description: 'One collection.', content: { 'application/json': collection, 'text/html': html } },
} as const;

const feature = {
  type: 'object',
  required: ['type', 'geometry', 'properties'],
  properties: {
    type: { const: 'Feature' },
    id: { type: 'integer' },
    geometry: { type: ['object', 'null'] },
    properties: { type: ['object', 'null'] },
    links,
  },
} as const;

export const itemsAnswer = {
  200: {
    description:
      'A page of features (GeoJSON) with numberMatched, numberReturned, timeStamp and next/prev links.',
    content: {
      'application/geo+json': {
        type: 'object',
        required: ['type', 'features'],
        properties: {
          type: { const: 'FeatureCollection' },
          features: { type: 'array', items: feature },
          numberMatched: { type: 'integer', minimum: 0 },
          numberReturned: { type: 'integer', minimum: 0 },
          timeStamp: { type: 'string', format: 'date-time' },
          links,
        },
      },
      'text/html': html,
    },
  },
  303: { description: 'A page larger than the inline limit: GET it from Location (docs/uploads.md).' },
} as const;

export const itemAnswer = {
  200: {
    description: 'One feature (GeoJSON).',
    content: { 'application/geo+json': feature, 'text/html': html },
  },
} as const;

export const apiAnswer = {
  200: {
    description: 'The OpenAPI 3.0 definition of this OGC API.',
    content: {
      'application/vnd.oai.openapi+json;version=3.0': { type: 'object', required: ['openapi', 'paths'] },
      'application/vnd.oai.openapi+json': { type: 'object', required: ['openapi', 'paths'] },
      'text/html': html,
    },
  },
} as const;
