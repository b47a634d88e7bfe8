import { dateSql, type Fragment, timestampSql } from '#lib/db/fragments.ts';
import type { Queryable } from '#lib/db/index.ts';
import { badRequest } from '#lib/errors.ts';
import {
  ARITHMETIC_OPS,
  type BboxLiteral,
  COMPARISON_OPS,
  type Expr,
  type Geometry,
  isOp,
  isProperty,
  type OpCall,
  positionsOf,
  SPATIAL_OPS,
  TEMPORAL_OPS,
} from './ast.ts';
import { COST_WEIGHTS as W } from './costWeights.ts';
import type { FilterCrs } from './crs.ts';
import { type Conversion, PropertyScope } from './propertyScope.ts';

/**
 * The CQL2 AST → a postgres.js SQL condition (docs/cql2.md). Nothing of the filter's text reaches the SQL:
 * literals are bound parameters; a property becomes what `SqlTarget.property` makes of a catalog name
 * (a column, or the jsonb value at a bound path), and an unknown one is a 400 naming it. Operators are
 * chosen from fixed tables here.
 *
 * Types: a comparison takes its type from its typed side (a number literal makes it numeric: a property
 * then counts under the project's numeric rule; a string makes it text; TRUE/FALSE boolean; DATE and
 * TIMESTAMP an instant); two untyped property values compare as jsonb. Temporal operators compare
 * intervals [start, end] by the standard's definitions (an instant is [t, t]; a DATE is its whole UTC day).
 * Logic is SQL's three-valued one: a comparison with a missing value is unknown, and so is its NOT.
 */

export type Kind = 'number' | 'text' | 'boolean' | 'instant' | 'geometry' | 'json';
export interface Operand {
  kind: Kind;
  sql: Fragment;
  /** A property value read once per feature: its number in the compiler's `PropertyScope`. */
  ref?: number;
}

export interface SqlTarget {
  sql: Queryable;
  /** A queryable by name, or undefined when the dataset has none of that name. */
  property(name: string): Operand | undefined;
  /** A jsonb value as float8 (NULL when it is not a number), and as timestamptz (NULL when not a time). */
  jsonNumber(v: Fragment): Fragment;
  jsonTime(v: Fragment): Fragment;
  /** The queryables answer to point clients at, in messages. */
  queryablesHint: string;
}

interface Interval {
  start: Fragment;
  end: Fragment;
}

/** The PostGIS predicate of a spatial operator (each written out: no text is spliced into SQL). */
function spatialSql(sql: Queryable, op: (typeof SPATIAL_OPS)[number], a: Fragment, b: Fragment): Fragment {
  switch (op) {
    case 's_intersects':
      return sql`ST_Intersects(${a}, ${b})`;
    case 's_equals':
      return sql`ST_Equals(${a}, ${b})`;
    case 's_disjoint':
      return sql`ST_Disjoint(${a}, ${b})`;
    case 's_touches':
      return sql`ST_Touches(${a}, ${b})`;
    case 's_within':
      return sql`ST_Within(${a}, ${b})`;
    case 's_overlaps':
      return sql`ST_Overlaps(${a}, ${b})`;
    case 's_crosses':
      return sql`ST_Crosses(${a}, ${b})`;
    case 's_contains':
      return sql`ST_Contains(${a}, ${b})`;
  }
}

/** `a op b` for a comparison operator (each written out). */
function compareSql(sql: Queryable, op: string, a: Fragment, b: Fragment): Fragment {
  switch (op) {
    case '=':
      return sql`(${a} = ${b})`;
    case '<>':
      return sql`(${a} <> ${b})`;
    case '<':
      return sql`(${a} < ${b})`;
    case '>':
      return sql`(${a} > ${b})`;
    case '<=':
      return sql`(${a} <= ${b})`;
    case '>=':
      return sql`(${a} >= ${b})`;
    default:
      throw new Error(`not a comparison operator: ${op}`);
  }
}

class Compiler {
  private readonly sql: Queryable;
  /** Where property values are read once per feature (set while compiling the conjuncts that read them). */
  private scope?: PropertyScope;
  /** Per-feature cost of what is compiled so far, spatial predicates apart (costWeights.ts). */
  units = 0;
  /** What the current scope has counted already (a value or conversion read once is counted once). */
  private counted = new Set<string>();
  constructor(
    private readonly t: SqlTarget,
    private readonly crs: FilterCrs,
  ) {
    this.sql = t.sql;
  }

  /**
   * The whole filter: the top-level conjuncts that read no property value stay plain conditions on the
   * row (a spatial predicate keeps its GiST index, `id` and the time columns their btrees); the others
   * become one subquery reading each property value once (`PropertyScope`).
   */
  filter(e: Expr): Fragment {
    const sql = this.sql;
    const conjuncts = isOp(e) && e.op === 'and' ? e.args : [e];
    const plain = conjuncts.filter((c) => !this.readsProperties(c)).map((c) => this.condition(c));
    const reading = conjuncts.filter((c) => this.readsProperties(c));
    if (reading.length > 0) {
      const scope = new PropertyScope(sql);
      const before = this.units;
      this.scope = scope;
      this.counted = new Set();
      const scoped = reading.map((c) => this.condition(c));
      this.scope = undefined;
      if (scope.pays) {
        this.units += W.scope;
        plain.push(scope.wrap(scoped.reduce((acc, p) => sql`${acc} and ${p}`)));
      } else {
        this.units = before;
        plain.push(...reading.map((c) => this.condition(c)));
      }
    }
    if (plain.length === 1) return plain[0];
    return sql`(${plain.reduce((acc, p) => sql`${acc} and ${p}`)})`;
  }

  /** Whether `e` names a property value (a jsonb path), as opposed to only columns and literals. */
  private readsProperties(e: Expr): boolean {
    if (Array.isArray(e)) return e.some((x) => this.readsProperties(x));
    if (typeof e !== 'object' || e === null) return false;
    if (isProperty(e)) return this.t.property(e.property)?.kind === 'json';
    if (isOp(e)) return e.args.some((x) => this.readsProperties(x));
    if ('interval' in e) return e.interval.some((x) => this.readsProperties(x as Expr));
    return false;
  }

  /** A conversion of a property value: once per feature in the scope, else inline. */
  private converted(v: Operand, conversion: Conversion, make: (raw: Fragment) => Fragment): Fragment {
    if (this.once(`${conversion}:${v.ref}`, v)) this.units += W.convert[conversion];
    if (this.scope && v.ref !== undefined) return this.scope.convert(conversion, v.ref, make);
    return make(v.sql);
  }

  /** Whether work on value `v` is to be counted: always inline; in a scope, its first time only. */
  private once(key: string, v: Operand): boolean {
    if (!this.scope || v.ref === undefined) return true;
    if (this.counted.has(key)) return false;
    this.counted.add(key);
    return true;
  }

  private unsupported(what: string): never {
    throw badRequest(`'filter' uses ${what}, which this server does not support (docs/cql2.md).`);
  }

  condition(e: Expr): Fragment {
    const sql = this.sql;
    if (typeof e === 'boolean') return e ? sql`true` : sql`false`;
    if (!isOp(e)) return this.unsupported('a value where a condition is expected');
    const { op, args } = e;
    if (op === 'and' || op === 'or' || op === 'not') this.units += W.logic * args.length;
    if (op === 'and' || op === 'or') {
      const parts = args.map((a) => this.condition(a));
      const joined = parts.reduce((acc, p) => (op === 'and' ? sql`${acc} and ${p}` : sql`${acc} or ${p}`));
      return sql`(${joined})`;
    }
    if (op === 'not') return sql`(not ${this.condition(args[0])})`;
    if ((COMPARISON_OPS as readonly string[]).includes(op)) return this.comparison(e);
    if (op === 'like') return this.like(args[0], args[1]);
    if (op === 'between') {
      const [v, lo, hi] = args.map((a) => this.asNumber(this.value(a), 'BETWEEN'));
      this.units += 2 * W.compare;
      return sql`(${v} between ${lo} and ${hi})`;
    }
    if (op === 'in') return this.inList(args[0], args[1] as Expr[]);
    if (op === 'isNull') return this.isNull(args[0]);
    if ((SPATIAL_OPS as readonly string[]).includes(op)) {
      const a = this.geometry(args[0]);
      const b = this.geometry(args[1]);
      return spatialSql(sql, op as (typeof SPATIAL_OPS)[number], a, b);
    }
    if ((TEMPORAL_OPS as readonly string[]).includes(op)) return this.temporal(op, args[0], args[1]);
    if (op.startsWith('a_')) return this.unsupported(`the array operator ${op}`);
    if (op === 'casei' || op === 'accenti' || (ARITHMETIC_OPS as readonly string[]).includes(op))
      return this.unsupported(`${op} where a condition is expected`);
    return this.unsupported(`the function '${op.slice(0, 40)}'`);
  }

  // ---- values
  private value(e: Expr): Operand {
    const sql = this.sql;
    if (typeof e === 'number') return { kind: 'number', sql: sql`${e}::float8` };
    if (typeof e === 'string') return { kind: 'text', sql: sql`${e}::text` };
    if (typeof e === 'boolean') return { kind: 'boolean', sql: sql`${e}::boolean` };
    if (Array.isArray(e)) return this.unsupported('an array here');
    if (isProperty(e)) return this.property(e.property);
    // An instant literal as an InitPlan: cast once per statement, not once per feature and arm.
    if ('date' in e) return { kind: 'instant', sql: sql`(select ${dateSql(sql, e.date)})` };
    if ('timestamp' in e) return { kind: 'instant', sql: sql`(select ${timestampSql(sql, e.timestamp)})` };
    if ('bbox' in e || 'type' in e) return { kind: 'geometry', sql: this.geometry(e) };
    if ('interval' in e) return this.unsupported('an INTERVAL outside a temporal operator');
    const { op, args } = e as OpCall;
    if (op === 'casei') {
      const v = this.value(args[0]);
      if (v.kind === 'json')
        return { kind: 'text', sql: this.converted(v, 'lower', (r) => sql`lower(${r} #>> '{}')`) };
      return { kind: 'text', sql: sql`lower(${this.asText(v, 'CASEI')})` };
    }
    if (op === 'accenti') return this.unsupported('ACCENTI (accent-insensitive comparison)');
    if ((ARITHMETIC_OPS as readonly string[]).includes(op)) return this.unsupported(`arithmetic ('${op}')`);
    return this.unsupported(`the function '${op.slice(0, 40)}'`);
  }

  private property(name: string): Operand {
    const p = this.t.property(name);
    if (!p)
      throw badRequest(
        `'filter' names an unknown property ${JSON.stringify(name.slice(0, 80))}; the queryables are listed at ${this.t.queryablesHint}.`,
      );
    if (p.kind !== 'json') return p;
    const v: Operand = this.scope ? { kind: 'json', ...this.scope.value(name, p.sql) } : p;
    if (this.once(`read:${v.ref}`, v)) this.units += W.read;
    return v;
  }

  private asNumber(v: Operand, where: string): Fragment {
    if (v.kind === 'number') return v.sql;
    if (v.kind === 'json') return this.converted(v, 'number', (r) => this.t.jsonNumber(r));
    return this.mismatch(v, 'a number', where);
  }

  private asText(v: Operand, where: string): Fragment {
    if (v.kind === 'text') return v.sql;
    if (v.kind === 'json') return this.converted(v, 'text', (r) => this.sql`(${r} #>> '{}')`);
    return this.mismatch(v, 'a string', where);
  }

  private asBoolean(v: Operand, where: string): Fragment {
    if (v.kind === 'boolean') return v.sql;
    if (v.kind === 'json')
      return this.converted(
        v,
        'boolean',
        (r) => this.sql`(case when jsonb_typeof(${r}) = 'boolean' then (${r} #>> '{}')::boolean end)`,
      );
    return this.mismatch(v, 'a boolean', where);
  }

  private asInstant(v: Operand, where: string): Fragment {
    if (v.kind === 'instant') return v.sql;
    if (v.kind === 'json') return this.converted(v, 'instant', (r) => this.t.jsonTime(r));
    return this.mismatch(v, 'an instant (DATE or TIMESTAMP)', where);
  }

  private mismatch(v: Operand, wanted: string, where: string): never {
    throw badRequest(`'filter' ${where} needs ${wanted}, but one side is ${KIND_NAMES[v.kind]}.`);
  }

  // ---- comparison predicates
  private comparison(e: OpCall): Fragment {
    const sql = this.sql;
    const a = this.value(e.args[0]);
    const b = this.value(e.args[1]);
    const kind = [a.kind, b.kind].find((k) => k !== 'json') ?? 'json';
    const where = `'${e.op}'`;
    this.units += kind === 'json' ? W.jsonCompare : W.compare;
    switch (kind) {
      case 'number':
        return compareSql(sql, e.op, this.asNumber(a, where), this.asNumber(b, where));
      case 'text':
        return compareSql(sql, e.op, sql`(${this.asText(a, where)} collate "C")`, this.asText(b, where));
      case 'boolean':
        return compareSql(sql, e.op, this.asBoolean(a, where), this.asBoolean(b, where));
      case 'instant':
        return compareSql(sql, e.op, this.asInstant(a, where), this.asInstant(b, where));
      case 'json':
        return compareSql(sql, e.op, a.sql, b.sql);
      default:
        return this.unsupported(`${e.op} on geometries (use S_EQUALS)`);
    }
  }

  private like(left: Expr, pattern: Expr): Fragment {
    const a = this.asText(this.value(left), 'LIKE');
    const p = this.asText(this.value(pattern), 'LIKE');
    this.units += W.like;
    return this.sql`(${a} like ${p} escape '\\')`;
  }

  private inList(left: Expr, list: Expr[]): Fragment {
    const sql = this.sql;
    const items = list.map((x) => this.value(x));
    const v = this.value(left);
    const kind = [v.kind, ...items.map((i) => i.kind)].find((k) => k !== 'json') ?? 'json';
    const conv = (o: Operand) => {
      if (kind === 'number') return this.asNumber(o, 'IN');
      if (kind === 'text') return this.asText(o, 'IN');
      if (kind === 'boolean') return this.asBoolean(o, 'IN');
      if (kind === 'instant') return this.asInstant(o, 'IN');
      if (kind === 'json') return o.sql;
      return this.unsupported('IN on geometries');
    };
    const parts = items.map(conv).reduce((acc, p) => sql`${acc}, ${p}`);
    this.units += W.inItem * items.length;
    return sql`(${conv(v)} in (${parts}))`;
  }

  private isNull(e: Expr): Fragment {
    const v = this.value(e);
    this.units += W.isNull;
    if (v.kind === 'json') return this.sql`(${v.sql} is null or jsonb_typeof(${v.sql}) = 'null')`;
    return this.sql`(${v.sql} is null)`;
  }

  // ---- spatial
  private geometry(e: Expr): Fragment {
    const sql = this.sql;
    if (typeof e === 'object' && e !== null && !Array.isArray(e)) {
      if ('bbox' in e) return this.bbox(e as BboxLiteral);
      if ('type' in e) {
        if (this.crs === 'EPSG:3857') checkMercator(positionsOf(e as Geometry));
        const g = sql`ST_Force2D(ST_GeomFromGeoJSON(${JSON.stringify(e as Geometry)}::text))`;
        // A scalar subquery (an InitPlan): built once per statement. As a plain expression of a parameter,
        // a prepared statement's generic plan built it again for every row (docs/cql2.md, "Cost").
        return sql`(select ST_MakeValid(${this.toWgs84(g)}))`;
      }
    }
    const v = this.value(e);
    if (v.kind !== 'geometry') return this.mismatch(v, 'a geometry', 'a spatial operator');
    return v.sql;
  }

  private bbox(e: BboxLiteral): Fragment {
    const b = e.bbox;
    let [x0, y0, x1, y1] = b.length === 6 ? [b[0], b[1], b[3], b[4]] : b;
    if (this.crs === 'EPSG:4326') [x0, y0, x1, y1] = [y0, x0, y1, x1];
    if (x0 > x1 || y0 > y1)
      throw badRequest(
        `'filter' has a BBOX whose minimum exceeds its maximum (one crossing the antimeridian is not supported).`,
      );
    if (this.crs === 'EPSG:3857')
      checkMercator([
        [x0, y0],
        [x1, y1],
      ]);
    const srid = this.crs === 'EPSG:3857' ? 3857 : 4326;
    const env = this
      .sql`ST_MakeEnvelope(${x0}::float8, ${y0}::float8, ${x1}::float8, ${y1}::float8, ${srid}::int)`;
    return srid === 4326 ? env : this.sql`(select ST_Transform(${env}, 4326))`;
  }

  /** A literal geometry in the filter CRS → lon/lat WGS 84. */
  private toWgs84(g: Fragment): Fragment {
    const sql = this.sql;
    if (this.crs === 'EPSG:4326') return sql`ST_SetSRID(ST_FlipCoordinates(${g}), 4326)`;
    if (this.crs === 'EPSG:3857') return sql`ST_Transform(ST_SetSRID(${g}, 3857), 4326)`;
    return sql`ST_SetSRID(${g}, 4326)`;
  }

  // ---- temporal
  private interval(e: Expr): Interval {
    const sql = this.sql;
    if (typeof e === 'object' && e !== null && !Array.isArray(e) && 'interval' in e) {
      const [a, b] = e.interval;
      const bothTimeColumns =
        isProperty(a) && isProperty(b) && a.property === 'start_time' && b.property === 'end_time';
      const start = this.bound(a, 'start');
      const end = this.bound(b, 'end');
      // A feature with only one of its times is an instant (as for the read filters' time window).
      if (bothTimeColumns)
        return { start: sql`coalesce(${start}, ${end})`, end: sql`coalesce(${end}, ${start})` };
      return { start, end };
    }
    if (typeof e === 'object' && e !== null && !Array.isArray(e) && 'date' in e) {
      const day = dateSql(sql, e.date);
      return {
        start: sql`(select ${day})`,
        end: sql`(select ${day} + interval '1 day' - interval '1 microsecond')`,
      };
    }
    const t = this.asInstant(this.value(e), 'a temporal operator');
    return { start: t, end: t };
  }

  private bound(e: Expr, side: 'start' | 'end'): Fragment {
    const sql = this.sql;
    if (typeof e === 'string') {
      if (e === '..') return side === 'start' ? sql`'-infinity'::timestamptz` : sql`'infinity'::timestamptz`;
      if (e.length === 10) return this.interval({ date: e })[side];
      return sql`(select ${timestampSql(sql, e)})`;
    }
    return this.interval(e)[side];
  }

  private temporal(op: string, x: Expr, y: Expr): Fragment {
    const sql = this.sql;
    const a = this.interval(x);
    const b = this.interval(y);
    this.units += W.compare * TEMPORAL_COMPARISONS[op];
    switch (op) {
      case 't_after':
        return sql`(${a.start} > ${b.end})`;
      case 't_before':
        return sql`(${a.end} < ${b.start})`;
      case 't_contains':
        return sql`(${a.start} < ${b.start} and ${a.end} > ${b.end})`;
      case 't_disjoint':
        return sql`(${a.end} < ${b.start} or ${a.start} > ${b.end})`;
      case 't_during':
        return sql`(${a.start} > ${b.start} and ${a.end} < ${b.end})`;
      case 't_equals':
        return sql`(${a.start} = ${b.start} and ${a.end} = ${b.end})`;
      case 't_finishedBy':
        return sql`(${a.start} < ${b.start} and ${a.end} = ${b.end})`;
      case 't_finishes':
        return sql`(${a.start} > ${b.start} and ${a.end} = ${b.end})`;
      case 't_intersects':
        return sql`(${a.start} <= ${b.end} and ${a.end} >= ${b.start})`;
      case 't_meets':
        return sql`(${a.end} = ${b.start})`;
      case 't_metBy':
        return sql`(${a.start} = ${b.end})`;
      case 't_overlappedBy':
        return sql`(${a.start} > ${b.start} and ${a.start} < ${b.end} and ${a.end} > ${b.end})`;
      case 't_overlaps':
        return sql`(${a.start} < ${b.start} and ${a.end} > ${b.start} and ${a.end} < ${b.end})`;
      case 't_startedBy':
        return sql`(${a.start} = ${b.start} and ${a.end} > ${b.end})`;
      case 't_starts':
        return sql`(${a.start} = ${b.start} and ${a.end} < ${b.end})`;
      default:
        return this.unsupported(`the temporal operator ${op}`);
    }
  }
}

/** Web Mercator's extent (x), and y up to latitude ±89.9: beyond it the transformation has no answer. */
const MERCATOR_X = 20037508.3428;
const MERCATOR_Y = 44927335;

function checkMercator(positions: number[][]): void {
  if (positions.some(([x, y]) => Math.abs(x) > MERCATOR_X || Math.abs(y) > MERCATOR_Y))
    throw badRequest(
      `'filter' has an EPSG:3857 coordinate outside the projection's extent (|x| <= ${MERCATOR_X}, |y| <= ${MERCATOR_Y}).`,
    );
}

/** The comparisons each temporal relation makes (as written in `temporal`). */
const TEMPORAL_COMPARISONS: Record<string, number> = {
  t_after: 1,
  t_before: 1,
  t_contains: 2,
  t_disjoint: 2,
  t_during: 2,
  t_equals: 2,
  t_finishedBy: 2,
  t_finishes: 2,
  t_intersects: 2,
  t_meets: 1,
  t_metBy: 1,
  t_overlappedBy: 3,
  t_overlaps: 3,
  t_startedBy: 2,
  t_starts: 2,
};

const KIND_NAMES: Record<Kind, string> = {
  number: 'a number',
  text: 'a string',
  boolean: 'a boolean',
  instant: 'an instant',
  geometry: 'a geometry',
  json: 'a property value',
};

/** The SQL condition of a parsed filter (400 for an unknown property, a type mismatch, an unsupported operator). */
export function compileCql2(ast: Expr, target: SqlTarget, crs: FilterCrs): Fragment {
  return new Compiler(target, crs).filter(ast);
}

/**
 * The condition and what it costs per feature, spatial predicates apart (cost.ts counts those with the
 * features their literal meets): the weights of costWeights.ts for each operator, argument and value as the
 * SQL evaluates them.
 */
export function compileCql2WithCost(
  ast: Expr,
  target: SqlTarget,
  crs: FilterCrs,
): { sql: Fragment; unitsPerFeature: number } {
  const c = new Compiler(target, crs);
  const sql = c.filter(ast);
  return { sql, unitsPerFeature: c.units };
}
