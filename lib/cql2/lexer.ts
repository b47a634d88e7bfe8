import { Cql2SyntaxError } from './errors.ts';

/**
 * Tokens of cql2-text (the standard's BNF, docs/cql2.md): identifiers (letters, `_`, `:` first; then also
 * digits, `.` and combining marks), double-quoted identifiers, single-quoted strings (`''` or `\'` for a
 * quote), unsigned numbers, and the operator characters. Keywords are identifiers matched case-insensitively
 * by the parser; a quoted identifier is never a keyword. `pos` is the 0-based index of the token's start.
 */
export type TokenKind = 'ident' | 'quoted' | 'string' | 'number' | 'punct' | 'eof';
export interface Token {
  kind: TokenKind;
  text: string;
  pos: number;
  /** The number of a `number` token. */
  value?: number;
}

const SPACE = /\s/u;
const ID_START = /[\p{L}_:]/u;
const ID_PART = /[\p{L}\p{N}\p{M}_:.]/u;
const NUMBER = /(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/y;
const PUNCT = ['<>', '<=', '>=', '=', '<', '>', '(', ')', ',', '+', '-', '*', '/', '%', '^'];

export function tokenize(text: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (SPACE.test(c)) {
      i++;
      continue;
    }
    if (c === "'") {
      let s = '';
      let j = i + 1;
      for (;;) {
        if (j >= text.length) throw new Cql2SyntaxError('unterminated string literal', i + 1);
        const d = text[j];
        if (d === "'" && text[j + 1] === "'") {
          s += "'";
          j += 2;
        } else if (d === '\\' && text[j + 1] === "'") {
          s += "'";
          j += 2;
        } else if (d === "'") {
          j++;
          break;
        } else {
          s += d;
          j++;
        }
      }
      out.push({ kind: 'string', text: s, pos: i });
      i = j;
      continue;
    }
    if (c === '"') {
      const end = text.indexOf('"', i + 1);
      if (end < 0) throw new Cql2SyntaxError('unterminated quoted property name', i + 1);
      const name = text.slice(i + 1, end);
      if (name === '') throw new Cql2SyntaxError('empty quoted property name', i + 1);
      out.push({ kind: 'quoted', text: name, pos: i });
      i = end + 1;
      continue;
    }
    NUMBER.lastIndex = i;
    const m = /[\d.]/.test(c) ? NUMBER.exec(text) : null;
    if (m) {
      const value = Number(m[0]);
      if (!Number.isFinite(value))
        throw new Cql2SyntaxError(`number ${m[0].slice(0, 30)} is out of range`, i + 1);
      out.push({ kind: 'number', text: m[0], pos: i, value });
      i += m[0].length;
      continue;
    }
    if (ID_START.test(c)) {
      let j = i + 1;
      while (j < text.length && ID_PART.test(text[j])) j++;
      out.push({ kind: 'ident', text: text.slice(i, j), pos: i });
      i = j;
      continue;
    }
    const p = PUNCT.find((q) => text.startsWith(q, i));
    if (!p) throw new Cql2SyntaxError(`unexpected character ${JSON.stringify(c)}`, i + 1);
    out.push({ kind: 'punct', text: p, pos: i });
    i += p.length;
  }
  out.push({ kind: 'eof', text: '', pos: text.length });
  return out;
}
