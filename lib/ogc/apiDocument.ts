import { type CollectionSource, queryables } from './collections.ts';
import { MAX_LIMIT } from './items.ts';

type Json = Record<string, any>;

/** Where the OGC API's routes are (serverless/ogc.yml). */
export const OGC_PREFIX = '/api/ogc';

/**
 * The items parameters as Part 1's OpenAPI building blocks declare them (`/req/core/fc-limit-definition`,
 * `fc-bbox-definition`, `fc-time-definition`): form style, not exploded; `bbox` an array of 4 or 6
 * numbers (sent comma-separated); `limit` with its maximum, which the request schema leaves out because
 * a larger limit is lowered to it, not refused (docs/ogc.md, "Items").
 */
function part1Parameter(p: Json): Json {
  if (p.in !== 'query') return p;
  const form = { ...p, style: 'form', explode: false };
  if (p.name === 'limit') return { ...form, schema: { ...p.schema, maximum: MAX_LIMIT } };
  if (p.name === 'bbox') {
    return { ...form, schema: { type: 'array', minItems: 4, maxItems: 6, items: { type: 'number' } } };
  }
  if (p.name === 'datetime' || p.name === 'bbox-crs' || p.name === 'crs') return form;
  return p;
}

/**
 * The operation ids OGC API – Tiles gives its operations (its Table 11, `/req/oas30/operation-id`): the
 * suite looks for a `….getTile`. The other operations keep their function names.
 */
const TILES_OPERATION_IDS: Record<string, string> = {
  '/tileMatrixSets': 'getTileMatrixSetsList',
  '/tileMatrixSets/{tileMatrixSetId}': 'getTileMatrixSet',
  '/collections/{collectionId}/tiles': 'collection.vector.getTileSetsList',
  '/collections/{collectionId}/tiles/{tileMatrixSetId}': 'collection.vector.getTileSet',
  '/collections/{collectionId}/tiles/{tileMatrixSetId}/{tileMatrix}/{tileRow}/{tileCol}':
    'collection.vector.getTile',
};

/**
 * The OGC API's own OpenAPI 3.0 definition (`/api/ogc/api`, docs/ogc.md "API definition") from `generated`
 * (the 3.0 rendering of the routes under /api/ogc): paths relative to the landing page (`servers`), and
 * for each collection its own items path `/collections/<name>/items` listing its queryables as query
 * parameters, where clients such as GDAL look for the properties they may filter on the server.
 */
export function ogcApiDocument(generated: Json, base: string, collections: CollectionSource[]): Json {
  const paths: Json = {};
  for (const [path, item] of Object.entries(generated.paths as Json)) {
    const own = path.slice(OGC_PREFIX.length) || '/';
    const id = TILES_OPERATION_IDS[own];
    paths[own] =
      id && (item as Json).get ? { ...item, get: { ...(item as Json).get, operationId: id } } : item;
  }
  const generic = paths['/collections/{collectionId}/items'];
  const items = generic?.get && {
    ...generic.get,
    parameters: (generic.get.parameters as Json[]).map(part1Parameter),
  };
  if (items) {
    paths['/collections/{collectionId}/items'] = { ...generic, get: items };
    for (const src of collections) {
      const fixed = (items.parameters as Json[]).filter(
        (p) => !(p.in === 'path' && p.name === 'collectionId'),
      );
      const props = [...queryables(src.extents)].map(([name, type]) => ({
        name,
        in: 'query',
        required: false,
        description: `Features whose property '${name}' equals the value.`,
        schema: { type, ...(type === 'string' ? { maxLength: 256 } : {}) },
      }));
      paths[`/collections/${encodeURIComponent(src.ds.name)}/items`] = {
        get: { ...items, operationId: `getItems_${src.ds.name}`, parameters: [...fixed, ...props] },
      };
    }
  }
  return {
    ...generated,
    info: {
      ...generated.info,
      description:
        'The geodatasets as OGC API – Features (Part 1 core, GeoJSON, HTML, OpenAPI 3.0; Part 2 CRS). ' +
        'Paths are relative to the server URL; every /api path also answers under /API.',
    },
    servers: [{ url: base }],
    paths,
  };
}
