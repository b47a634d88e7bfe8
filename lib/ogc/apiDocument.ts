import { type CollectionSource, queryables } from './collections.ts';

type Json = Record<string, any>;

/** Where the OGC API's routes are (serverless/ogc.yml). */
export const OGC_PREFIX = '/api/ogc';

/**
 * The OGC API's own OpenAPI 3.0 definition (`/api/ogc/api`, docs/ogc.md "API definition") from `generated`
 * (the 3.0 rendering of the routes under /api/ogc): paths relative to the landing page (`servers`), and
 * for each collection its own items path `/collections/<name>/items` listing its queryables as query
 * parameters, where clients such as GDAL look for the properties they may filter on the server.
 */
export function ogcApiDocument(generated: Json, base: string, collections: CollectionSource[]): Json {
  const paths: Json = {};
  for (const [path, item] of Object.entries(generated.paths as Json)) {
    paths[path.slice(OGC_PREFIX.length) || '/'] = item;
  }
  const items = paths['/collections/{collectionId}/items']?.get;
  if (items) {
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
