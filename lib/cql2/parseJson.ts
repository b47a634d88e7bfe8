import {
  arityOf,
  canonicalOp,
  type Expr,
  flatten,
  type Geometry,
  normalDate,
  normalInstantText,
  normalTimestamp,
  type Position,
} from './ast.ts';
import { Cql2SyntaxError } from './errors.ts';
import { CQL2_LIMITS } from './limits.ts';

/**
 * cql2-json → the CQL2 AST (ast.ts), checked against the standard's JSON schema (docs/cql2.md): every node
 * is a literal, an array, `{property}`, `{date}`, `{timestamp}`, `{interval:[a,b]}`, `{bbox:[4|6 numbers]}`,
 * a GeoJSON geometry, or `{op, args}`. Errors name the JSON path of the offending node (`$.args[1]`);
 * JSON syntax errors name the character position.
 */

const GEOMETRY_DEPTH: Record<string, number> = {
  Point: 0,
  MultiPoint: 1,
  LineString: 1,
  MultiLineString: 2,
  Polygon: 2,
  MultiPolygon: 3,
};

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

class JsonChecker {
  private nodes = 0;

  private fail(message: string, path: string): never {
    throw new Cql2SyntaxError(message, path);
  }

  private count(path: string): void {
    if (++this.nodes > CQL2_LIMITS.maxNodes)
      this.fail(`the filter has more than ${CQL2_LIMITS.maxNodes} nodes`, path);
  }

  private keys(o: Record<string, unknown>, allowed: string[], path: string): void {
    const extra = Object.keys(o).filter((k) => !allowed.includes(k));
    if (extra.length) this.fail(`unexpected member '${extra[0].slice(0, 40)}'`, path);
  }

  expr(v: unknown, path: string, depth: number): Expr {
    if (depth > CQL2_LIMITS.maxDepth)
      this.fail(`the filter nests deeper than ${CQL2_LIMITS.maxDepth} levels`, path);
    this.count(path);
    if (typeof v === 'string' || typeof v === 'boolean') return v;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) this.fail('a number must be finite', path);
      return v || 0; // -0 → 0
    }
    if (Array.isArray(v)) return v.map((x, i) => this.expr(x, `${path}[${i}]`, depth + 1));
    if (!isObject(v)) this.fail(`null is not a CQL2 value`, path);
    if ('op' in v) return this.op(v, path, depth);
    if ('property' in v) {
      this.keys(v, ['property'], path);
      if (typeof v.property !== 'string' || v.property === '' || v.property.length > 256)
        this.fail("'property' must be a name of 1-256 characters", `${path}.property`);
      return { property: v.property };
    }
    if ('date' in v) {
      this.keys(v, ['date'], path);
      const d = typeof v.date === 'string' ? normalDate(v.date) : undefined;
      if (!d) this.fail("'date' must be a date YYYY-MM-DD", `${path}.date`);
      return { date: d };
    }
    if ('timestamp' in v) {
      this.keys(v, ['timestamp'], path);
      const t = typeof v.timestamp === 'string' ? normalTimestamp(v.timestamp) : undefined;
      if (!t) this.fail("'timestamp' must be a timestamp YYYY-MM-DDThh:mm:ss[.f]Z", `${path}.timestamp`);
      return { timestamp: t };
    }
    if ('interval' in v) {
      this.keys(v, ['interval'], path);
      const iv = v.interval;
      if (!Array.isArray(iv) || iv.length !== 2)
        this.fail("'interval' must be an array of two bounds", `${path}.interval`);
      const bound = (b: unknown, i: number): Expr => {
        const p = `${path}.interval[${i}]`;
        if (typeof b === 'string') {
          const s = normalInstantText(b);
          if (s === undefined) this.fail(`'${b.slice(0, 40)}' is not a date, a timestamp or '..'`, p);
          return s;
        }
        if (isObject(b) && ('property' in b || 'op' in b)) return this.expr(b, p, depth + 1);
        return this.fail(
          'an interval bound must be a date or timestamp string, "..", a property or a function',
          p,
        );
      };
      return { interval: [bound(iv[0], 0), bound(iv[1], 1)] };
    }
    if ('bbox' in v) {
      this.keys(v, ['bbox'], path);
      const b = v.bbox;
      if (
        !Array.isArray(b) ||
        (b.length !== 4 && b.length !== 6) ||
        !b.every((n) => typeof n === 'number' && Number.isFinite(n))
      )
        this.fail("'bbox' must be an array of 4 or 6 numbers", `${path}.bbox`);
      return { bbox: (b as number[]).map((n) => n || 0) };
    }
    if ('type' in v) return this.geometry(v, path, depth);
    return this.fail(
      'expected a literal, an array, a property, a temporal or spatial literal, or {op, args}',
      path,
    );
  }

  private op(v: Record<string, unknown>, path: string, depth: number): Expr {
    this.keys(v, ['op', 'args'], path);
    if (typeof v.op !== 'string' || v.op === '' || v.op.length > 64)
      this.fail("'op' must be an operator or function name", `${path}.op`);
    const op = canonicalOp(v.op);
    const raw = v.args ?? [];
    if (!Array.isArray(raw)) this.fail("'args' must be an array", `${path}.args`);
    const args = raw.map((a, i) => this.expr(a, `${path}.args[${i}]`, depth + 1));
    const n = arityOf(op);
    if (op === 'and' || op === 'or') {
      if (args.length < 2) this.fail(`'${op}' takes two or more arguments`, `${path}.args`);
      return flatten(op, args);
    }
    if (n !== undefined && args.length !== n)
      this.fail(`'${op}' takes ${n} argument${n === 1 ? '' : 's'}, got ${args.length}`, `${path}.args`);
    if (op === 'in' && !Array.isArray(args[1]))
      this.fail("the second argument of 'in' must be an array", `${path}.args[1]`);
    return { op, args };
  }

  private positions(c: unknown, level: number, path: string): unknown {
    if (level === 0) {
      if (
        !Array.isArray(c) ||
        c.length < 2 ||
        c.length > 3 ||
        !c.every((n) => typeof n === 'number' && Number.isFinite(n))
      )
        this.fail('a position must be 2 or 3 numbers', path);
      this.count(path);
      return c.map((n) => n || 0);
    }
    if (!Array.isArray(c) || c.length === 0) this.fail('coordinates must be a non-empty array', path);
    return c.map((x, i) => this.positions(x, level - 1, `${path}[${i}]`));
  }

  private geometry(v: Record<string, unknown>, path: string, depth: number): Geometry {
    const type = v.type;
    if (type === 'GeometryCollection') {
      this.keys(v, ['type', 'geometries', 'bbox'], path);
      if (!Array.isArray(v.geometries) || v.geometries.length === 0)
        this.fail("'geometries' must be a non-empty array", `${path}.geometries`);
      return {
        type,
        geometries: v.geometries.map((g, i) => {
          const p = `${path}.geometries[${i}]`;
          if (depth + 1 > CQL2_LIMITS.maxDepth)
            this.fail(`the filter nests deeper than ${CQL2_LIMITS.maxDepth} levels`, p);
          if (!isObject(g)) this.fail('expected a GeoJSON geometry', p);
          return this.geometry(g, p, depth + 1);
        }),
      };
    }
    if (typeof type !== 'string' || !(type in GEOMETRY_DEPTH))
      this.fail(`'type' must be a GeoJSON geometry type`, `${path}.type`);
    this.keys(v, ['type', 'coordinates', 'bbox'], path);
    const coordinates = this.positions(
      v.coordinates,
      GEOMETRY_DEPTH[type],
      `${path}.coordinates`,
    ) as Position[][];
    if (type === 'LineString' && coordinates.length < 2)
      this.fail('a LineString needs 2 or more positions', path);
    if (type === 'MultiLineString' && coordinates.some((l) => l.length < 2))
      this.fail('a line needs 2 or more positions', path);
    const ringOk = (r: Position[]) => r.length >= 4 && r[0].every((n, k) => n === r[r.length - 1][k]);
    if (type === 'Polygon' && !coordinates.every(ringOk))
      this.fail('a polygon ring needs at least 4 positions, the last equal to the first', path);
    if (type === 'MultiPolygon' && !(coordinates as unknown as Position[][][]).every((p) => p.every(ringOk)))
      this.fail('a polygon ring needs at least 4 positions, the last equal to the first', path);
    return { type, coordinates } as Geometry;
  }
}

/** Parses cql2-json given as JSON text or as an already parsed value; throws `Cql2SyntaxError`. */
export function parseCql2Json(input: unknown): Expr {
  let value = input;
  if (typeof input === 'string') {
    if (input.length > CQL2_LIMITS.maxLength)
      throw new Cql2SyntaxError(
        `the filter is longer than ${CQL2_LIMITS.maxLength} characters`,
        CQL2_LIMITS.maxLength + 1,
      );
    try {
      value = JSON.parse(input);
    } catch (e) {
      const m = /position (\d+)/.exec((e as Error).message);
      throw new Cql2SyntaxError(`not JSON (${(e as Error).message.slice(0, 120)})`, m ? Number(m[1]) + 1 : 1);
    }
  } else if (JSON.stringify(input)?.length > CQL2_LIMITS.maxLength) {
    throw new Cql2SyntaxError(`the filter is longer than ${CQL2_LIMITS.maxLength} characters`, '$');
  }
  return new JsonChecker().expr(value, '$', 0);
}
