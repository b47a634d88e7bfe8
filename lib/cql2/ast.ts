/**
 * The one AST both CQL2 encodings parse into (docs/cql2.md): the CQL2-JSON data model itself, validated
 * and normalized, so `parseCql2Text` and `parseCql2Json` of the same expression give equal trees.
 *
 * Normalization: operator names are the standard's spelling (`isNull`, `t_finishedBy`, `casei`); nested
 * `and`/`or` of the same operator are flattened; `IS NOT NULL`, `NOT LIKE`, `NOT BETWEEN`, `NOT IN` become
 * `not(...)`; timestamps drop a fraction of zeros (`…:00.000Z` → `…:00Z`); WKT literals become GeoJSON.
 */

export interface PropertyRef {
  property: string;
}
export interface DateLiteral {
  date: string;
}
export interface TimestampLiteral {
  timestamp: string;
}
/** Bounds: a date or timestamp string, `..` (open), or an expression (a property, a function). */
export interface IntervalLiteral {
  interval: [Expr, Expr];
}
export interface BboxLiteral {
  bbox: number[];
}
export type Position = number[];
export type Geometry =
  | { type: 'Point'; coordinates: Position }
  | { type: 'MultiPoint' | 'LineString'; coordinates: Position[] }
  | { type: 'MultiLineString' | 'Polygon'; coordinates: Position[][] }
  | { type: 'MultiPolygon'; coordinates: Position[][][] }
  | { type: 'GeometryCollection'; geometries: Geometry[] };
export interface OpCall {
  op: string;
  args: Expr[];
}
export type Expr =
  | string
  | number
  | boolean
  | Expr[]
  | PropertyRef
  | DateLiteral
  | TimestampLiteral
  | IntervalLiteral
  | BboxLiteral
  | Geometry
  | OpCall;

export const COMPARISON_OPS = ['=', '<>', '<', '>', '<=', '>='] as const;
export const ARITHMETIC_OPS = ['+', '-', '*', '/', '%', '^', 'div'] as const;
export const SPATIAL_OPS = [
  's_intersects',
  's_equals',
  's_disjoint',
  's_touches',
  's_within',
  's_overlaps',
  's_crosses',
  's_contains',
] as const;
export const TEMPORAL_OPS = [
  't_after',
  't_before',
  't_contains',
  't_disjoint',
  't_during',
  't_equals',
  't_finishedBy',
  't_finishes',
  't_intersects',
  't_meets',
  't_metBy',
  't_overlappedBy',
  't_overlaps',
  't_startedBy',
  't_starts',
] as const;
export const ARRAY_OPS = ['a_containedBy', 'a_contains', 'a_equals', 'a_overlaps'] as const;

/** Standard operators and functions by lower-case name → the standard's spelling. */
const STANDARD = new Map<string, string>(
  [
    'and',
    'or',
    'not',
    'like',
    'between',
    'in',
    'isNull',
    'casei',
    'accenti',
    ...SPATIAL_OPS,
    ...TEMPORAL_OPS,
    ...ARRAY_OPS,
  ].map((n) => [n.toLowerCase(), n]),
);

/** The standard spelling of an operator or function name; other (custom function) names as given. */
export function canonicalOp(name: string): string {
  return STANDARD.get(name.toLowerCase()) ?? name;
}

/** Fixed argument counts of the standard operators (`and`/`or` take two or more). */
export function arityOf(op: string): number | undefined {
  if ((COMPARISON_OPS as readonly string[]).includes(op)) return 2;
  if ((ARITHMETIC_OPS as readonly string[]).includes(op)) return 2;
  if (op === 'not' || op === 'isNull' || op === 'casei' || op === 'accenti') return 1;
  if (op === 'like' || op === 'in') return 2;
  if (op === 'between') return 3;
  if (op.startsWith('s_') || op.startsWith('t_') || op.startsWith('a_'))
    return STANDARD.has(op.toLowerCase()) ? 2 : undefined;
  return undefined;
}

export function isOp(e: Expr): e is OpCall {
  return typeof e === 'object' && e !== null && !Array.isArray(e) && 'op' in e;
}
export function isProperty(e: Expr): e is PropertyRef {
  return typeof e === 'object' && e !== null && !Array.isArray(e) && 'property' in e;
}

/** `and`/`or` with their nested namesakes' arguments spliced in. */
export function flatten(op: 'and' | 'or', args: Expr[]): OpCall {
  const out: Expr[] = [];
  for (const a of args) {
    if (isOp(a) && a.op === op) out.push(...a.args);
    else out.push(a);
  }
  return { op, args: out };
}

export const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;
export const TIMESTAMP_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

function realDate(s: string): boolean {
  const [y, m, d] = s.slice(0, 10).split('-').map(Number);
  const t = new Date(Date.UTC(y, m - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === m - 1 && t.getUTCDate() === d;
}

/** A valid calendar date `YYYY-MM-DD`, or undefined. */
export function normalDate(s: string): string | undefined {
  return DATE_RE.test(s) && realDate(s) ? s : undefined;
}

/** A valid RFC 3339 timestamp with its all-zero fraction dropped (`.000000Z` → `Z`), or undefined. */
export function normalTimestamp(s: string): string | undefined {
  if (!TIMESTAMP_RE.test(s) || !realDate(s)) return undefined;
  const [h, mi, sec] = s.slice(11, 19).split(':').map(Number);
  if (h > 23 || mi > 59 || sec > 60) return undefined;
  // RFC 3339's time-numoffset: hours 00-23, minutes 00-59 (`+24:00` and `+00:60` are not offsets).
  const offset = /([+-])(\d{2}):(\d{2})$/.exec(s);
  if (offset && (Number(offset[2]) > 23 || Number(offset[3]) > 59)) return undefined;
  return s.replace(/\.(\d*?)0+(?=Z|[+-])/, (_m, keep: string) => (keep ? `.${keep}` : ''));
}

/** An interval bound given as text: a date, a timestamp or `..`; undefined when it is none of them. */
export function normalInstantText(s: string): string | undefined {
  if (s === '..') return s;
  return normalDate(s) ?? normalTimestamp(s);
}

/** Every position of a geometry. */
export function positionsOf(g: Geometry): number[][] {
  if (g.type === 'GeometryCollection') return g.geometries.flatMap(positionsOf);
  const out: number[][] = [];
  const walk = (c: unknown): void => {
    if (Array.isArray(c) && typeof c[0] === 'number') out.push(c as number[]);
    else if (Array.isArray(c)) c.forEach(walk);
  };
  walk(g.coordinates);
  return out;
}
