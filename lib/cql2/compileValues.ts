import { dateSql, type Fragment, sqlIdentifier, timestampSql } from '#lib/db/fragments.ts';
import type { Queryable } from '#lib/db/index.ts';
import { badRequest } from '#lib/errors.ts';
import { accentiSql } from './accenti.ts';
import { arithmeticSql } from './arithmetic.ts';
import {
  ARITHMETIC_OPS,
  type BboxLiteral,
  type Expr,
  type Geometry,
  isOp,
  isProperty,
  type OpCall,
  positionsOf,
} from './ast.ts';
import { COST_WEIGHTS as W } from './costWeights.ts';
import type { FilterCrs } from './crs.ts';
import { cql2Function } from './functions.ts';
import { checkLonLat, checkMercator, MERCATOR_X } from './literals.ts';
import type { Conversion, PropertyScope } from './propertyScope.ts';

/**
 * The values of a filter as the compiler (compile.ts) reads them: literals as bound parameters, a property
 * as its `SqlTarget` makes it (read once per feature in a `PropertyScope` where that pays), each converted
 * to the type its comparison needs (a 400 naming the mismatch), and geometry literals in lon/lat WGS 84.
 * Each value and conversion adds its weight (costWeights.ts) to `units`, once per scope.
 */

export type Kind = 'number' | 'text' | 'boolean' | 'instant' | 'geometry' | 'json';
export interface Operand {
  kind: Kind;
  sql: Fragment;
  /** A property value read once per feature: its number in the compiler's `PropertyScope`. */
  ref?: number;
  /**
   * A property value's type as the dataset's queryables give it (docs/cql2.md, "Queryables"): what two
   * property values compare as, and `date` a property whose values are days (a temporal operator takes
   * the whole day).
   */
  typed?: 'number' | 'text' | 'boolean' | 'instant' | 'date';
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

const KIND_NAMES: Record<Kind, string> = {
  number: 'a number',
  text: 'a string',
  boolean: 'a boolean',
  instant: 'an instant',
  geometry: 'a geometry',
  json: 'a property value',
};

/** The value half of the compiler: compile.ts writes the conditions on what it reads. */
export abstract class ValueCompiler {
  protected readonly sql: Queryable;
  /** Where property values are read once per feature (set while compiling the conjuncts that read them). */
  protected scope?: PropertyScope;
  /** Per-feature cost of what is compiled so far, spatial predicates apart (costWeights.ts). */
  units = 0;
  /** What the current scope has counted already (a value or conversion read once is counted once). */
  protected counted = new Set<string>();
  constructor(
    protected readonly t: SqlTarget,
    protected readonly crs: FilterCrs,
  ) {
    this.sql = t.sql;
  }

  /** A conversion of a property value: once per feature in the scope, else inline. */
  protected converted(v: Operand, conversion: Conversion, make: (raw: Fragment) => Fragment): Fragment {
    if (this.once(`${conversion}:${v.ref}`, v)) this.units += W.convert[conversion];
    if (this.scope && v.ref !== undefined) return this.scope.convert(conversion, v.ref, make);
    return make(v.sql);
  }

  /** Whether work on value `v` is to be counted: always inline; in a scope, its first time only. */
  protected once(key: string, v: Operand): boolean {
    if (!this.scope || v.ref === undefined) return true;
    if (this.counted.has(key)) return false;
    this.counted.add(key);
    return true;
  }

  protected unsupported(what: string): never {
    throw badRequest(`'filter' uses ${what}, which this server does not support (docs/cql2.md).`);
  }

  // ---- values
  protected value(e: Expr): Operand {
    const sql = this.sql;
    if (typeof e === 'number') return { kind: 'number', sql: sql`${e}::float8` };
    if (typeof e === 'string') return { kind: 'text', sql: sql`${e}::text` };
    if (typeof e === 'boolean') return { kind: 'boolean', sql: sql`${e}::boolean` };
    if (Array.isArray(e)) return this.unsupported('an array outside an array function (A_CONTAINS, ...)');
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
    if (op === 'accenti') {
      this.units += W.accenti;
      return { kind: 'text', sql: accentiSql(sql, this.asText(this.value(args[0]), 'ACCENTI')) };
    }
    if ((ARITHMETIC_OPS as readonly string[]).includes(op)) {
      const where = `the arithmetic operator '${op}'`;
      const [a, b] = args.map((x) => this.asNumber(this.value(x), where));
      this.units += W.arithmetic;
      // The guards name each operand several times: an operand that is itself an operation is computed
      // once, in a subquery, so that nesting does not multiply the work (docs/cql2.md, "Cost").
      if (!args.some((x) => isOp(x))) return { kind: 'number', sql: arithmeticSql(sql, op, a, b) };
      const [x, y] = [sqlIdentifier(sql, 'cql2_a.x'), sqlIdentifier(sql, 'cql2_a.y')];
      return {
        kind: 'number',
        sql: sql`(select ${arithmeticSql(sql, op, x, y)} from (select ${a} as x, ${b} as y offset 0) cql2_a)`,
      };
    }
    const f = cql2Function(op);
    if (!f)
      return this.unsupported(
        `the function '${op.slice(0, 40)}' (the functions are listed at /api/ogc/functions)`,
      );
    if (args.length !== f.args.length)
      throw badRequest(
        `'filter' calls ${f.name} with ${args.length} argument${args.length === 1 ? '' : 's'}; it takes ${f.args.length}.`,
      );
    const converted = args.map((x, i) => {
      const v = this.value(x);
      return f.args[i].type[0] === 'string' ? this.asText(v, f.name) : this.asNumber(v, f.name);
    });
    this.units += W.function;
    return { kind: f.returns[0] === 'string' ? 'text' : 'number', sql: f.sql(sql, converted) };
  }

  /**
   * An array function's operand as jsonb (lib/cql2/arrays.ts): a literal array (its items strings, numbers,
   * booleans, days and instants as their strings, nested arrays, or property values), or a property value.
   */
  protected arrayValue(e: Expr): Fragment {
    const sql = this.sql;
    if (Array.isArray(e)) {
      if (e.length === 0) return sql`'[]'::jsonb`;
      const items = e.map((x) => this.arrayItem(x)).reduce((acc, p) => sql`${acc}, ${p}`);
      return sql`jsonb_build_array(${items})`;
    }
    if (isProperty(e)) return this.jsonOf(this.property(e.property));
    return this.unsupported('an array function on a value that is not an array or a property');
  }

  private arrayItem(e: Expr): Fragment {
    const sql = this.sql;
    if (Array.isArray(e)) return this.arrayValue(e);
    if (typeof e === 'string' || typeof e === 'number' || typeof e === 'boolean')
      return sql`${JSON.stringify(e)}::text::jsonb`; // text: a driver serializes a jsonb parameter itself
    if (typeof e === 'object' && e !== null && 'date' in e)
      return sql`${JSON.stringify(e.date)}::text::jsonb`;
    if (typeof e === 'object' && e !== null && 'timestamp' in e)
      return sql`${JSON.stringify(e.timestamp)}::text::jsonb`;
    if (isProperty(e)) return this.jsonOf(this.property(e.property));
    return this.unsupported('an array item that is not a literal, an array or a property');
  }

  /** A property value as jsonb (a column as its JSON value). */
  private jsonOf(v: Operand): Fragment {
    if (v.kind === 'json') return v.sql;
    if (v.kind === 'geometry') return this.unsupported('a geometry in an array');
    return this.sql`to_jsonb(${v.sql})`;
  }

  protected property(name: string): Operand {
    const p = this.t.property(name);
    if (!p)
      throw badRequest(
        `'filter' names an unknown property ${JSON.stringify(name.slice(0, 80))}; the queryables are listed at ${this.t.queryablesHint}.`,
      );
    if (p.kind !== 'json') return p;
    const v: Operand = this.scope ? { kind: 'json', typed: p.typed, ...this.scope.value(name, p.sql) } : p;
    if (this.once(`read:${v.ref}`, v)) this.units += W.read;
    return v;
  }

  protected asNumber(v: Operand, where: string): Fragment {
    if (v.kind === 'number') return v.sql;
    if (v.kind === 'json') return this.converted(v, 'number', (r) => this.t.jsonNumber(r));
    return this.mismatch(v, 'a number', where);
  }

  protected asText(v: Operand, where: string): Fragment {
    if (v.kind === 'text') return v.sql;
    if (v.kind === 'json') return this.converted(v, 'text', (r) => this.sql`(${r} #>> '{}')`);
    return this.mismatch(v, 'a string', where);
  }

  protected asBoolean(v: Operand, where: string): Fragment {
    if (v.kind === 'boolean') return v.sql;
    if (v.kind === 'json')
      return this.converted(
        v,
        'boolean',
        (r) => this.sql`(case when jsonb_typeof(${r}) = 'boolean' then (${r} #>> '{}')::boolean end)`,
      );
    return this.mismatch(v, 'a boolean', where);
  }

  protected asInstant(v: Operand, where: string): Fragment {
    if (v.kind === 'instant') return v.sql;
    if (v.kind === 'json') return this.converted(v, 'instant', (r) => this.t.jsonTime(r));
    return this.mismatch(v, 'an instant (DATE or TIMESTAMP)', where);
  }

  protected mismatch(v: Operand, wanted: string, where: string): never {
    throw badRequest(`'filter' ${where} needs ${wanted}, but one side is ${KIND_NAMES[v.kind]}.`);
  }

  // ---- spatial
  protected geometry(e: Expr): Fragment {
    const sql = this.sql;
    if (typeof e === 'object' && e !== null && !Array.isArray(e)) {
      if ('bbox' in e) return this.bbox(e as BboxLiteral);
      if ('type' in e) {
        const positions = positionsOf(e as Geometry);
        if (this.crs === 'EPSG:3857') checkMercator(positions);
        else checkLonLat(this.crs === 'EPSG:4326' ? positions.map(([lat, lon]) => [lon, lat]) : positions);
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

  protected bbox(e: BboxLiteral): Fragment {
    const b = e.bbox;
    let [x0, y0, x1, y1] = b.length === 6 ? [b[0], b[1], b[3], b[4]] : b;
    if (this.crs === 'EPSG:4326') [x0, y0, x1, y1] = [y0, x0, y1, x1];
    if (y0 > y1) throw badRequest(`'filter' has a BBOX whose southern edge is north of its northern edge.`);
    const corners = [
      [x0, y0],
      [x1, y1],
    ];
    if (this.crs === 'EPSG:3857') checkMercator(corners);
    else checkLonLat(corners);
    const srid = this.crs === 'EPSG:3857' ? 3857 : 4326;
    const envelope = (w: number, e: number) =>
      this.sql`ST_MakeEnvelope(${w}::float8, ${y0}::float8, ${e}::float8, ${y1}::float8, ${srid}::int)`;
    // West east of east: the box across the antimeridian (the standard's BBox), the two boxes either side.
    const edge = srid === 3857 ? MERCATOR_X : 180;
    const env =
      x0 > x1 ? this.sql`ST_Collect(${envelope(x0, edge)}, ${envelope(-edge, x1)})` : envelope(x0, x1);
    if (srid === 4326) return x0 > x1 ? this.sql`(select ${env})` : env;
    return this.sql`(select ST_Transform(${env}, 4326))`;
  }

  /** A literal geometry in the filter CRS → lon/lat WGS 84. */
  protected toWgs84(g: Fragment): Fragment {
    const sql = this.sql;
    if (this.crs === 'EPSG:4326') return sql`ST_SetSRID(ST_FlipCoordinates(${g}), 4326)`;
    if (this.crs === 'EPSG:3857') return sql`ST_Transform(ST_SetSRID(${g}, 3857), 4326)`;
    return sql`ST_SetSRID(${g}, 4326)`;
  }
}
