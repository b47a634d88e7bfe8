/**
 * The conformance classes of OGC API - Features - Part 3 (Filtering) and of CQL2 that this server
 * implements (docs/cql2.md), for `/api/ogc/conformance`. Not claimed: accent-insensitive comparison
 * (PostgreSQL's unaccent is not available on every database this service runs on), array operators,
 * arithmetic, property-property comparisons and custom functions. queryables-query-parameters: the OGC
 * items take `name=value` for each queryable (docs/ogc.md, "Items").
 */
export const CQL2_CONFORMANCE = [
  'http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/filter',
  'http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/features-filter',
  'http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/queryables',
  'http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/queryables-query-parameters',
  'http://www.opengis.net/spec/cql2/1.0/conf/cql2-text',
  'http://www.opengis.net/spec/cql2/1.0/conf/cql2-json',
  'http://www.opengis.net/spec/cql2/1.0/conf/basic-cql2',
  'http://www.opengis.net/spec/cql2/1.0/conf/advanced-comparison-operators',
  'http://www.opengis.net/spec/cql2/1.0/conf/case-insensitive-comparison',
  'http://www.opengis.net/spec/cql2/1.0/conf/basic-spatial-functions',
  'http://www.opengis.net/spec/cql2/1.0/conf/basic-spatial-functions-plus',
  'http://www.opengis.net/spec/cql2/1.0/conf/spatial-functions',
  'http://www.opengis.net/spec/cql2/1.0/conf/temporal-functions',
] as const;
