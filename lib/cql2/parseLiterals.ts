import {
  type Expr,
  type Geometry,
  normalDate,
  normalInstantText,
  normalTimestamp,
  type Position,
} from './ast.ts';
import type { Token } from './lexer.ts';
import { describe, TokenCursor } from './tokenCursor.ts';

/**
 * The literals of cql2-text that are more than one token: the geometries, WKT (`POINT(…)`,
 * `POLYGON Z(…)`, …, `GEOMETRYCOLLECTION(…)`) as GeoJSON geometries of the AST, and `BBOX(…)` (4 or 6
 * numbers); the times, `DATE('…')`, `TIMESTAMP('…')` and `INTERVAL(…, …)`. parseText.ts reads the rest
 * of the grammar, including an interval bound that is an expression (`scalar`).
 */

export const WKT = new Map<string, Geometry['type']>([
  ['POINT', 'Point'],
  ['LINESTRING', 'LineString'],
  ['POLYGON', 'Polygon'],
  ['MULTIPOINT', 'MultiPoint'],
  ['MULTILINESTRING', 'MultiLineString'],
  ['MULTIPOLYGON', 'MultiPolygon'],
  ['GEOMETRYCOLLECTION', 'GeometryCollection'],
]);

export abstract class LiteralParser extends TokenCursor {
  /** An arithmetic expression or a value (parseText.ts): an interval bound may be one. */
  protected abstract scalar(): Expr;

  protected bbox(): Expr {
    this.i++;
    this.expectPunct('(');
    const n = [this.signedNumber()];
    while (this.isPunct(',')) {
      this.i++;
      n.push(this.signedNumber());
    }
    if (n.length !== 4 && n.length !== 6) this.fail(`BBOX takes 4 or 6 numbers, got ${n.length}`);
    this.expectPunct(')');
    return this.node({ bbox: n });
  }

  protected position(dims: number): Position {
    const p = [this.signedNumber(), this.signedNumber()];
    if (dims === 3) p.push(this.signedNumber());
    return p;
  }

  protected ring(dims: number, closed: boolean): Position[] {
    const start = this.peek();
    const pts = this.list(() => this.position(dims));
    if (closed) {
      const [a, b] = [pts[0], pts[pts.length - 1]];
      if (pts.length < 4 || a.some((v, k) => v !== b[k]))
        this.fail('a polygon ring needs at least 4 positions, the last equal to the first', start);
    } else if (pts.length < 2) this.fail('a line needs at least 2 positions', start);
    return pts;
  }

  protected geometry(): Geometry {
    const kw = this.next();
    const type = WKT.get(kw.text.toUpperCase());
    if (!type) this.fail(`expected a WKT geometry but found ${describe(kw)}`, kw);
    let dims = 2;
    if (this.isKw('Z')) {
      this.i++;
      dims = 3;
    }
    const g = this.node(this.geometryBody(type, dims));
    return g;
  }

  protected geometryBody(type: Geometry['type'], dims: number): Geometry {
    switch (type) {
      case 'Point': {
        const [p] = this.list(() => this.position(dims));
        return { type, coordinates: p };
      }
      case 'LineString':
        return { type, coordinates: this.ring(dims, false) };
      case 'Polygon':
        return { type, coordinates: this.list(() => this.ring(dims, true)) };
      case 'MultiPoint':
        return {
          type,
          coordinates: this.list(() =>
            this.isPunct('(') ? this.list(() => this.position(dims))[0] : this.position(dims),
          ),
        };
      case 'MultiLineString':
        return { type, coordinates: this.list(() => this.ring(dims, false)) };
      case 'MultiPolygon':
        return { type, coordinates: this.list(() => this.list(() => this.ring(dims, true))) };
      case 'GeometryCollection':
        return { type, geometries: this.list(() => this.geometry()) };
    }
  }

  protected stringArg(what: string): { text: string; tok: Token } {
    const tok = this.peek();
    if (tok.kind !== 'string') this.fail(`expected a quoted ${what} but found ${describe(tok)}`);
    this.i++;
    return { text: tok.text, tok };
  }

  protected instant(word: 'DATE' | 'TIMESTAMP'): Expr {
    this.i++;
    this.expectPunct('(');
    const { text, tok } = this.stringArg(word === 'DATE' ? 'date (YYYY-MM-DD)' : 'timestamp');
    this.expectPunct(')');
    if (word === 'DATE') {
      const d = normalDate(text);
      if (!d) this.fail(`'${text.slice(0, 40)}' is not a date (YYYY-MM-DD)`, tok);
      return this.node({ date: d });
    }
    const ts = normalTimestamp(text);
    if (!ts) this.fail(`'${text.slice(0, 40)}' is not a timestamp (YYYY-MM-DDThh:mm:ss[.f]Z)`, tok);
    return this.node({ timestamp: ts });
  }

  protected intervalBound(): Expr {
    const t = this.peek();
    if (t.kind === 'string') {
      this.i++;
      const v = normalInstantText(t.text);
      if (v === undefined) this.fail(`'${t.text.slice(0, 40)}' is not a date, a timestamp or '..'`, t);
      return this.node(v);
    }
    if (t.kind === 'ident' && (this.isKw('DATE') || this.isKw('TIMESTAMP')) && this.isPunct('(', 1)) {
      const e = this.instant(t.text.toUpperCase() as 'DATE' | 'TIMESTAMP') as {
        date?: string;
        timestamp?: string;
      };
      return (e.date ?? e.timestamp) as string;
    }
    return this.scalar();
  }

  protected interval(): Expr {
    this.i++;
    this.expectPunct('(');
    const a = this.intervalBound();
    this.expectPunct(',');
    const b = this.intervalBound();
    this.expectPunct(')');
    return this.node({ interval: [a, b] });
  }
}
