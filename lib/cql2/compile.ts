import type { Fragment } from '#lib/db/fragments.ts';
import { dateSql, timestampSql } from '#lib/db/fragments.ts';
import { badRequest } from '#lib/errors.ts';
import { arraySql } from './arrays.ts';
import {
  ARITHMETIC_OPS,
  ARRAY_OPS,
  COMPARISON_OPS,
  type Expr,
  isOp,
  isProperty,
  type OpCall,
  SPATIAL_OPS,
  TEMPORAL_OPS,
} from './ast.ts';
import { type Kind, type Operand, type SqlTarget, ValueCompiler } from './compileValues.ts';
import { COST_WEIGHTS as W } from './costWeights.ts';
import type { FilterCrs } from './crs.ts';
import { cql2Function } from './functions.ts';
import { PropertyScope } from './propertyScope.ts';
import { compareSql, type Interval, spatialSql, TEMPORAL_COMPARISONS, temporalSql } from './sqlOperators.ts';

export type { Kind, Operand, SqlTarget } from './compileValues.ts';

/**
 * The CQL2 AST → a postgres.js SQL condition (docs/cql2.md). Nothing of the filter's text reaches the SQL:
 * literals are bound parameters; a property becomes what `SqlTarget.property` makes of a catalog name
 * (a column, or the jsonb value at a bound path), and an unknown one is a 400 naming it. Operators are
 * chosen from fixed tables (sqlOperators.ts); the values and their conversions are compileValues.ts.
 *
 * Types: a comparison takes its type from its typed side (a number literal makes it numeric: a property
 * then counts under the project's numeric rule; a string makes it text; TRUE/FALSE boolean; DATE and
 * TIMESTAMP an instant); two property values compare as the type the queryables give both (a date or
 * date-time string as an instant), else as jsonb, JSON null being NULL. Temporal operators compare
 * intervals [start, end] by the standard's definitions (an instant is [t, t]; a DATE, and a property whose
 * values are days, is its whole UTC day).
 * Logic is SQL's three-valued one: a comparison with a missing value is unknown, and so is its NOT.
 */

/**
 * What two property values compare as: the type the queryables give both (a day is an instant), else
 * their JSON values.
 */
function bothTyped(a: Operand, b: Operand): Kind {
  const as = (o: Operand) => (o.typed === 'date' ? 'instant' : o.typed);
  return as(a) !== undefined && as(a) === as(b) ? (as(a) as Kind) : 'json';
}

class Compiler extends ValueCompiler {
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
    if ((ARRAY_OPS as readonly string[]).includes(op)) {
      const a = this.arrayValue(args[0]);
      const b = this.arrayValue(args[1]);
      this.units += W.array;
      return arraySql(sql, op as (typeof ARRAY_OPS)[number], a, b);
    }
    if (op === 'casei' || op === 'accenti' || (ARITHMETIC_OPS as readonly string[]).includes(op))
      return this.unsupported(`${op} where a condition is expected`);
    const f = cql2Function(op);
    if (f)
      throw badRequest(
        `'filter' uses ${f.name}, which returns a ${f.returns[0]}, where a condition is expected.`,
      );
    return this.unsupported(
      `the function '${op.slice(0, 40)}' (the functions are listed at /api/ogc/functions)`,
    );
  }

  // ---- comparison predicates
  private comparison(e: OpCall): Fragment {
    const sql = this.sql;
    const a = this.value(e.args[0]);
    const b = this.value(e.args[1]);
    const kind = [a.kind, b.kind].find((k) => k !== 'json') ?? bothTyped(a, b);
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
        // JSON null is a missing value: a comparison with it is NULL (unknown), never true.
        return compareSql(
          sql,
          e.op,
          sql`nullif(${a.sql}, 'null'::jsonb)`,
          sql`nullif(${b.sql}, 'null'::jsonb)`,
        );
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
    const v = this.value(e);
    const t = this.asInstant(v, 'a temporal operator');
    // A property whose values are days (queryables: `format: date`) is the whole day, as a DATE is.
    if (v.typed === 'date')
      return { start: t, end: sql`(${t} + interval '1 day' - interval '1 microsecond')` };
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
    return temporalSql(sql, op, a, b) ?? this.unsupported(`the temporal operator ${op}`);
  }
}

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
