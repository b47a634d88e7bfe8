/** Bounds on a filter (docs/cql2.md, "Limits"): what a request may cost before any SQL is built. */
export const CQL2_LIMITS = {
  /** Characters of a cql2-text filter, or of a cql2-json filter's JSON text. */
  maxLength: 20_000,
  /** Nesting of operators, functions, parentheses and arrays. */
  maxDepth: 40,
  /** Nodes: operators, literals, property references, list items, geometry positions. */
  maxNodes: 5_000,
  /** Vertices (positions) of one geometry literal. */
  maxGeometryVertices: 1_000,
  /** Vertices of all the geometry literals of one filter. */
  maxVertices: 2_000,
  /**
   * Characters of the SQL a filter compiles to, as the Data API receives it: its ExecuteStatement takes at
   * most 65,536 characters of `sql` (AWS, RDS Data API reference), and a read's statement holds the filter
   * twice with `noDuplicates`, around at most a few thousand characters of its own (docs/cql2.md, "Limits").
   */
  maxSqlChars: 16_384,
} as const;

/**
 * The work one statement of a read may spend on a filter (docs/cql2.md, "Cost"), in units of about 0.1 µs
 * of the embedded database's time (a third to a half of that on a server): one literal vertex compared with
 * one feature, or the weights of costWeights.ts per feature for the other operators and values.
 */
export const CQL2_COST = {
  /** Above this a read is refused with a 400 naming `filter`: about 0.5 s of the embedded database. */
  maxUnits: 5_000_000,
  /** Above this a read is costly: it waits for a place in its process's costly-read lane (lane.ts). */
  costlyUnits: 250_000,
  /**
   * One keyset statement of a GeoJSON read (and its export) under a filter: its id span is narrowed to this
   * many units (spatial predicates included), about 0.25 s of the embedded database, so a statement
   * queued ahead of another request's (PGlite runs one at a time) ends soon.
   */
  statementUnits: 2_500_000,
  /** The narrowest such span, in ids. */
  minSpan: 200,
} as const;
