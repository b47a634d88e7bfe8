/**
 * The OGC API – Tiles – Part 1 conformance classes this service declares (docs/ogc-tiles.md,
 * "Conformance"), for `GET /api/ogc/conformance`. Not declared: `dataset-tilesets` and
 * `collections-selection` (no tiles of the whole dataset, so no `collections` parameter), `datetime`,
 * the other encodings and `oas30` (the OpenAPI document is the Features part's).
 */
export const TILES_CONFORMANCE_CLASSES = [
  'http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/core',
  'http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/tileset',
  'http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/tilesets-list',
  'http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/geodata-tilesets',
  'http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/mvt',
  // The 2D Tile Matrix Set and Tileset Metadata standard 2.0, JSON encodings.
  'http://www.opengis.net/spec/tms/2.0/conf/tilematrixset',
  'http://www.opengis.net/spec/tms/2.0/conf/json-tilematrixset',
  'http://www.opengis.net/spec/tms/2.0/conf/tilesetmetadata',
  'http://www.opengis.net/spec/tms/2.0/conf/json-tilesetmetadata',
  'http://www.opengis.net/spec/tms/2.0/conf/tilematrixsetlimits',
  'http://www.opengis.net/spec/tms/2.0/conf/json-tilematrixsetlimits',
] as const;
