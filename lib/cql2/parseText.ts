import { ARRAY_OPS, arityOf, canonicalOp, type Expr, flatten, isOp } from './ast.ts';
import { Cql2SyntaxError } from './errors.ts';
import { tokenize } from './lexer.ts';
import { CQL2_LIMITS } from './limits.ts';
import { LiteralParser, WKT } from './parseLiterals.ts';
import { describe } from './tokenCursor.ts';

/**
 * cql2-text → the CQL2 AST (ast.ts): recursive descent over the standard's BNF (docs/cql2.md).
 *
 *   booleanExpression = booleanTerm { OR booleanTerm }
 *   booleanTerm       = booleanFactor { AND booleanFactor }
 *   booleanFactor     = [ NOT ] booleanPrimary
 *   booleanPrimary    = "(" booleanExpression ")" | predicate | function | booleanLiteral
 *   predicate         = scalar ( compOp scalar | [NOT] LIKE scalar | [NOT] BETWEEN scalar AND scalar
 *                              | [NOT] IN "(" scalar {"," scalar} ")" | IS [NOT] NULL )
 *                     | S_xxx(...) | T_xxx(...) | A_xxx(...)
 *   scalar            = term { ("+"|"-") term };  term = power { ("*"|"/"|"%"|DIV) power }
 *   power             = unary [ "^" unary ];       unary = ["-"|"+"] number | primary
 *   primary           = number | string | TRUE | FALSE | property | "(" scalar ")"
 *                     | DATE(string) | TIMESTAMP(string) | INTERVAL(bound, bound) | BBOX(numbers)
 *                     | WKT geometry | name "(" [argument {"," argument}] ")"
 *
 * A "(" that opens a boolean group and one that opens an arithmetic group look alike: the group is tried
 * first and, when it is followed by an operator (or fails), the predicate reading is taken instead.
 * Errors carry the 1-based character position of the token where parsing stopped (the furthest one).
 * The token cursor and its limits are tokenCursor.ts; the geometry and time literals parseLiterals.ts.
 */

const RESERVED = new Set(['AND', 'OR', 'NOT', 'LIKE', 'BETWEEN', 'IN', 'IS', 'NULL', 'DIV']);
const COMPARISON = new Set(['=', '<>', '<', '>', '<=', '>=']);
const ARRAY_OP_NAMES = new Set<string>(ARRAY_OPS);

class TextParser extends LiteralParser {
  parse(): Expr {
    const e = this.booleanExpression();
    const t = this.peek();
    if (t.kind !== 'eof') this.fail(`unexpected ${describe(t)} after a complete expression`);
    return e;
  }

  // ---- boolean level
  private booleanExpression(): Expr {
    const args = [this.booleanTerm()];
    while (this.isKw('OR')) {
      this.i++;
      args.push(this.booleanTerm());
    }
    return args.length === 1 ? args[0] : this.node(flatten('or', args));
  }

  private booleanTerm(): Expr {
    const args = [this.booleanFactor()];
    while (this.isKw('AND')) {
      this.i++;
      args.push(this.booleanFactor());
    }
    return args.length === 1 ? args[0] : this.node(flatten('and', args));
  }

  private booleanFactor(): Expr {
    if (this.isKw('NOT')) {
      this.i++;
      return this.nested(() => this.node({ op: 'not', args: [this.booleanFactor()] }));
    }
    return this.booleanPrimary();
  }

  private booleanPrimary(): Expr {
    if (!this.isPunct('(')) return this.predicate();
    const start = this.i;
    let groupError: Cql2SyntaxError | undefined;
    const nodes = this.nodes;
    try {
      const e = this.nested(() => {
        this.i++;
        const inner = this.booleanExpression();
        this.expectPunct(')');
        return inner;
      });
      if (!this.startsPredicateTail()) return e;
    } catch (err) {
      if (!(err instanceof Cql2SyntaxError)) throw err;
      groupError = err;
    }
    this.i = start;
    this.nodes = nodes;
    try {
      return this.predicate();
    } catch (err) {
      if (groupError && err instanceof Cql2SyntaxError && (groupError.at as number) > (err.at as number))
        throw groupError;
      throw err;
    }
  }

  /** After a parenthesized group: does an operator follow that makes it the left side of a predicate? */
  private startsPredicateTail(): boolean {
    const t = this.peek();
    if (t.kind === 'punct') return t.text !== ')' && t.text !== ',';
    return ['NOT', 'LIKE', 'BETWEEN', 'IN', 'IS', 'DIV'].some((w) => this.isKw(w));
  }

  private predicate(): Expr {
    const start = this.peek();
    const left = this.scalar();
    const t = this.peek();
    if (t.kind === 'punct' && COMPARISON.has(t.text)) {
      this.i++;
      return this.node({ op: t.text, args: [left, this.scalar()] });
    }
    if (this.isKw('NOT') && (this.isKw('LIKE', 1) || this.isKw('BETWEEN', 1) || this.isKw('IN', 1))) {
      this.i++;
      return this.node({ op: 'not', args: [this.comparisonTail(left)] });
    }
    if (this.isKw('LIKE') || this.isKw('BETWEEN') || this.isKw('IN')) return this.comparisonTail(left);
    if (this.isKw('IS')) {
      this.i++;
      const not = this.isKw('NOT');
      if (not) this.i++;
      this.expectKw('NULL');
      const isNull = this.node({ op: 'isNull', args: [left] });
      return not ? this.node({ op: 'not', args: [isNull] }) : isNull;
    }
    // A function (a spatial, temporal or array predicate, or a custom one) or TRUE/FALSE stands alone.
    if (typeof left === 'boolean' || (isOp(left) && arityOf(left.op) !== 2) || this.isPredicateFunction(left))
      return left;
    this.fail(
      `expected a comparison operator, LIKE, BETWEEN, IN or IS NULL after the expression at character ${start.pos + 1}, found ${describe(t)}`,
    );
  }

  private isPredicateFunction(e: Expr): boolean {
    return isOp(e) && /^[sta]_/i.test(e.op);
  }

  private comparisonTail(left: Expr): Expr {
    if (this.isKw('LIKE')) {
      this.i++;
      return this.node({ op: 'like', args: [left, this.scalar()] });
    }
    if (this.isKw('BETWEEN')) {
      this.i++;
      const low = this.scalar();
      this.expectKw('AND');
      return this.node({ op: 'between', args: [left, low, this.scalar()] });
    }
    this.expectKw('IN');
    this.expectPunct('(', "'(' to open the IN list");
    const list = this.nested(() => {
      const items = [this.scalar()];
      while (this.isPunct(',')) {
        this.i++;
        items.push(this.node(this.scalar()));
      }
      return items;
    });
    this.expectPunct(')', "')' to close the IN list");
    return this.node({ op: 'in', args: [left, list] });
  }

  // ---- scalar level
  protected scalar(): Expr {
    let e = this.term();
    while (this.isPunct('+') || this.isPunct('-')) {
      const op = this.next().text;
      e = this.node({ op, args: [e, this.term()] });
    }
    return e;
  }

  private term(): Expr {
    let e = this.power();
    while (this.isPunct('*') || this.isPunct('/') || this.isPunct('%') || this.isKw('DIV')) {
      const t = this.next();
      const op = t.kind === 'ident' ? 'div' : t.text;
      e = this.node({ op, args: [e, this.power()] });
    }
    return e;
  }

  private power(): Expr {
    const base = this.unary();
    if (!this.isPunct('^')) return base;
    this.i++;
    return this.node({ op: '^', args: [base, this.unary()] });
  }

  private unary(): Expr {
    if ((this.isPunct('-') || this.isPunct('+')) && this.peek(1).kind === 'number') {
      const sign = this.next().text === '-' ? -1 : 1;
      return this.node(sign * (this.next().value as number) || 0);
    }
    return this.primary();
  }

  private primary(): Expr {
    const t = this.peek();
    switch (t.kind) {
      case 'number':
        this.i++;
        return this.node(t.value as number);
      case 'string':
        this.i++;
        return this.node(t.text);
      case 'quoted':
        this.i++;
        return this.node({ property: t.text });
      case 'punct':
        if (t.text === '(') {
          return this.nested(() => {
            this.i++;
            const e = this.scalar();
            this.expectPunct(')');
            return e;
          });
        }
        return this.fail(`expected a value, a property or a function but found ${describe(t)}`);
      case 'eof':
        return this.fail('the filter ends where a value, a property or a function was expected');
    }
    const word = t.text.toUpperCase();
    if (word === 'TRUE' || word === 'FALSE') {
      this.i++;
      return this.node(word === 'TRUE');
    }
    if (RESERVED.has(word)) this.fail(`expected a value, a property or a function but found ${describe(t)}`);
    const call = this.isPunct('(', 1);
    const wkt = WKT.get(word);
    if (wkt && (call || (this.isKw('Z', 1) && this.isPunct('(', 2)))) return this.geometry();
    if (!call) {
      this.i++;
      return this.node({ property: t.text });
    }
    if (word === 'DATE' || word === 'TIMESTAMP') return this.instant(word);
    if (word === 'INTERVAL') return this.interval();
    if (word === 'BBOX') return this.bbox();
    return this.functionCall();
  }

  private functionCall(): Expr {
    const name = this.next();
    const op = canonicalOp(name.text);
    this.expectPunct('(');
    const args = this.nested(() => {
      const out: Expr[] = [];
      if (this.isPunct(')')) return out;
      const arg = () => (ARRAY_OP_NAMES.has(op) && this.isPunct('(') ? this.arrayLiteral() : this.scalar());
      out.push(arg());
      while (this.isPunct(',')) {
        this.i++;
        out.push(arg());
      }
      return out;
    });
    this.expectPunct(')', `')' to close ${name.text}(...)`);
    const n = arityOf(op);
    if (n !== undefined && args.length !== n)
      this.fail(`${name.text} takes ${n} argument${n === 1 ? '' : 's'}, got ${args.length}`, name);
    return this.node({ op, args });
  }

  private arrayLiteral(): Expr[] {
    return this.nested(() => {
      this.expectPunct('(');
      const items: Expr[] = [];
      if (!this.isPunct(')')) {
        const item = () => (this.isPunct('(') ? this.arrayLiteral() : this.scalar());
        items.push(item());
        while (this.isPunct(',')) {
          this.i++;
          items.push(item());
        }
      }
      this.expectPunct(')', "')' to close the array");
      return this.node(items);
    });
  }
}

/** Parses cql2-text; throws `Cql2SyntaxError` with the 1-based character position. */
export function parseCql2Text(text: string): Expr {
  if (text.length > CQL2_LIMITS.maxLength)
    throw new Cql2SyntaxError(
      `the filter is longer than ${CQL2_LIMITS.maxLength} characters`,
      CQL2_LIMITS.maxLength + 1,
    );
  if (text.trim() === '') throw new Cql2SyntaxError('the filter is empty', 1);
  return new TextParser(tokenize(text)).parse();
}
