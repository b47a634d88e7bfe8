/**
 * What each part of a compiled filter costs per feature (docs/cql2.md, "Cost"), in the unit of the cost
 * estimate: about 0.1 µs of the embedded database's time (the server takes a third to a half of that).
 * Set from `bench/cql2Cost.ts`, which times every operator on 20,000 features, 1 and 10 OR-ed arms
 * false for every feature (so every arm runs), on both databases; each weight rounds the embedded
 * figure up. The compiler adds them as it writes the SQL (compile.ts), so the estimate follows what the
 * database evaluates: a property value read once per feature is counted once, however many arms use it.
 */
export const COST_WEIGHTS = {
  /** The subquery that reads property values once per feature (PropertyScope). */
  scope: 40,
  /** Reading a property's jsonb at its path. */
  read: 10,
  /** Converting a property value, once per feature in a scope (or at each use inline). */
  convert: { number: 60, instant: 250, text: 5, lower: 20, boolean: 10 },
  /** One comparison of two values (`=`, `<`, a bound of BETWEEN or of a temporal relation). */
  compare: 2,
  /** IS NULL (of a property: its JSON type is looked at too). */
  isNull: 5,
  /** Two property values compared as jsonb. */
  jsonCompare: 5,
  /** LIKE (a pattern match). */
  like: 3,
  /** IN: per list item. */
  inItem: 1,
  /** AND, OR, NOT: per argument. */
  logic: 1,
  /**
   * An arithmetic operator with its guards (arithmetic.ts: a CASE, logarithms for `*`, `/`, `^`), ~3 µs,
   * and the subquery that computes a nested operand once.
   */
  arithmetic: 40,
  /** ACCENTI (accenti.ts: NFD, the marks removed by a regular expression, NFC): ~5 µs per value. */
  accenti: 60,
  /** A custom function (functions.ts; `round` through numeric): ~2 µs. */
  function: 20,
  /** An array predicate (arrays.ts: subqueries over both arrays' elements): ~6-10 µs. */
  array: 100,
} as const;
