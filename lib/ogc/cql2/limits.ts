/** Bounds on a filter (docs/cql2.md, "Limits"): what a request may cost before any SQL is built. */
export const CQL2_LIMITS = {
  /** Characters of a cql2-text filter, or of a cql2-json filter's JSON text. */
  maxLength: 20_000,
  /** Nesting of operators, functions, parentheses and arrays. */
  maxDepth: 40,
  /** Nodes: operators, literals, property references, list items, geometry positions. */
  maxNodes: 5_000,
} as const;
