import { dateSql, type Fragment, timestampSql } from '#lib/db/fragments.ts';
import type { Queryable } from '#lib/db/index.ts';
import { badRequest } from '#lib/errors.ts';
import {
  ARITHMETIC_OPS,
  type BboxLiteral,
  type Expr,
  type Geometry,
  isProperty,
  type OpCall,
  positionsOf,
} from './ast.ts';
import { COST_WEIGHTS as W } from './costWeights.ts';
import type { FilterCrs } from './crs.ts';
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

/** Web Mercator's extent (x), and y up to latitude ±89.9: beyond it the transformation has no answer. */
const MERCATOR_X = 20037508.3428;
const MERCATOR_Y = 44927335;

function checkMercator(positions: number[][]): void {
  if (positions.some(([x, y]) => Math.abs(x) > MERCATOR_X || Math.abs(y) > MERCATOR_Y))
    throw badRequest(
      `'filter' has an EPSG:3857 coordinate outside the projection's extent (|x| <= ${MERCATOR_X}, |y| <= ${MERCATOR_Y}).`,
    );
}

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

  protected property(name: string): Operand {
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

  protected bbox(e: BboxLiteral): Fragment {
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
  protected toWgs84(g: Fragment): Fragment {
    const sql = this.sql;
    if (this.crs === 'EPSG:4326') return sql`ST_SetSRID(ST_FlipCoordinates(${g}), 4326)`;
    if (this.crs === 'EPSG:3857') return sql`ST_Transform(ST_SetSRID(${g}, 3857), 4326)`;
    return sql`ST_SetSRID(${g}, 4326)`;
  }
}
