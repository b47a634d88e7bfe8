import { Cql2SyntaxError } from './errors.ts';
import type { Token } from './lexer.ts';
import { CQL2_LIMITS } from './limits.ts';

/**
 * The token cursor the cql2-text parsers share (parseWkt.ts, parseText.ts): where parsing is, what comes
 * next, the errors at the 1-based character position of the token where it stopped, and the node and
 * depth limits of lib/cql2/limits.ts counted as the filter is read.
 */

/** A token as an error message names it. */
export function describe(t: Token): string {
  if (t.kind === 'eof') return 'the end of the filter';
  if (t.kind === 'string') return `'${t.text.slice(0, 30)}'`;
  if (t.kind === 'quoted') return `"${t.text.slice(0, 30)}"`;
  return `'${t.text.slice(0, 30)}'`;
}

export class TokenCursor {
  protected i = 0;
  protected depth = 0;
  protected nodes = 0;
  constructor(protected readonly toks: Token[]) {}

  protected peek(k = 0): Token {
    return this.toks[Math.min(this.i + k, this.toks.length - 1)];
  }
  protected next(): Token {
    const t = this.peek();
    if (t.kind !== 'eof') this.i++;
    return t;
  }
  protected fail(message: string, t: Token = this.peek()): never {
    throw new Cql2SyntaxError(message, t.pos + 1);
  }
  protected isKw(word: string, k = 0): boolean {
    const t = this.peek(k);
    return t.kind === 'ident' && t.text.toUpperCase() === word;
  }
  protected isPunct(p: string, k = 0): boolean {
    const t = this.peek(k);
    return t.kind === 'punct' && t.text === p;
  }
  protected expectPunct(p: string, what = `'${p}'`): void {
    if (!this.isPunct(p)) this.fail(`expected ${what} but found ${describe(this.peek())}`);
    this.i++;
  }
  protected expectKw(word: string): void {
    if (!this.isKw(word)) this.fail(`expected ${word} but found ${describe(this.peek())}`);
    this.i++;
  }
  protected node<T>(v: T): T {
    if (++this.nodes > CQL2_LIMITS.maxNodes)
      this.fail(`the filter has more than ${CQL2_LIMITS.maxNodes} nodes`);
    return v;
  }
  protected nested<T>(f: () => T): T {
    if (++this.depth > CQL2_LIMITS.maxDepth)
      this.fail(`the filter nests deeper than ${CQL2_LIMITS.maxDepth} levels`);
    try {
      return f();
    } finally {
      this.depth--;
    }
  }

  /** `( item {, item} )`, one nesting level deeper. */
  protected list<T>(item: () => T): T[] {
    return this.nested(() => {
      this.expectPunct('(');
      const out = [item()];
      while (this.isPunct(',')) {
        this.i++;
        out.push(item());
      }
      this.expectPunct(')');
      return out;
    });
  }

  protected signedNumber(): number {
    let sign = 1;
    if (this.isPunct('-') || this.isPunct('+')) sign = this.next().text === '-' ? -1 : 1;
    const t = this.peek();
    if (t.kind !== 'number') this.fail(`expected a number but found ${describe(t)}`);
    this.i++;
    return this.node(sign * (t.value as number) || 0);
  }
}
