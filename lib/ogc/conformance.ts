import { CQL2_CONFORMANCE } from './cql2Conformance.ts';
import { TILES_CONFORMANCE_CLASSES } from './tiles/conformance.ts';

/**
 * The conformance classes this OGC API declares (docs/ogc.md, "Conformance"): Features, then filtering
 * (docs/cql2.md), then Tiles (docs/ogc-tiles.md, "Conformance").
 */
export const CONFORMANCE_CLASSES = [
  'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core',
  'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/geojson',
  'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/html',
  'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/oas30',
  'http://www.opengis.net/spec/ogcapi-features-2/1.0/conf/crs',
  ...CQL2_CONFORMANCE,
  ...TILES_CONFORMANCE_CLASSES,
] as const;
