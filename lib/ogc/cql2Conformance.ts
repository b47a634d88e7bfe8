/**
 * The conformance classes of OGC API - Features - Part 3 (Filtering) and of CQL2 that this server
 * implements (docs/cql2.md, "Conformance"), for `/api/ogc/conformance`: every class of CQL2 1.0. Each CQL2
 * class declared here is one whose suite passes: the standard's abstract test suite rows
 * (tests/api/cql2-ats.test.ts) or, for the classes without rows, the tests that name it
 * (tests/api/cql2-classes.test.ts enforces both). queryables-query-parameters: the OGC items take
 * `name=value` for each queryable (docs/ogc.md, "Items").
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
  'http://www.opengis.net/spec/cql2/1.0/conf/accent-insensitive-comparison',
  'http://www.opengis.net/spec/cql2/1.0/conf/basic-spatial-functions',
  'http://www.opengis.net/spec/cql2/1.0/conf/basic-spatial-functions-plus',
  'http://www.opengis.net/spec/cql2/1.0/conf/spatial-functions',
  'http://www.opengis.net/spec/cql2/1.0/conf/temporal-functions',
  'http://www.opengis.net/spec/cql2/1.0/conf/array-functions',
  'http://www.opengis.net/spec/cql2/1.0/conf/property-property',
  'http://www.opengis.net/spec/cql2/1.0/conf/functions',
  'http://www.opengis.net/spec/cql2/1.0/conf/arithmetic',
] as const;
