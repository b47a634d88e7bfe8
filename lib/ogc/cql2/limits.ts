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
} as const;

/**
 * The work a filter's spatial predicates may cost one read (docs/cql2.md, "Cost"), in units of one
 * literal vertex compared with one feature (about 0.1-0.3 µs each, measured on both databases).
 */
export const CQL2_COST = {
  /** Above this a read is refused with a 400 naming `filter`: about 0.2-0.6 s of database work. */
  maxUnits: 2_000_000,
  /** Above this a read is costly: it waits for a place in its process's costly-read lane (lane.ts). */
  costlyUnits: 100_000,
} as const;
