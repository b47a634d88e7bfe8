/**
 * Splits SQL text (a migration file) into its statements, at the semicolons PostgreSQL's own lexer ends
 * statements at: none inside `'...'` strings (`''` escapes; `E'...'` strings also `\'`), `"..."` quoted
 * identifiers, dollar-quoted bodies (`$$...$$`, `$tag$...$tag$`), `--` comments or `/* ... *\/` comments
 * (which nest, as in PostgreSQL). Statements come back without their semicolon, trimmed; pieces holding
 * nothing but comments and blanks are dropped.
 *
 * Why: the RDS Data API runs one statement per ExecuteStatement call (docs/deploying.md, "Limits"), so the
 * migration runner sends a file's statements one by one, on every driver alike (lib/db/migrate.ts).
 * Not understood, so not to be written in a migration: a function body as `BEGIN ATOMIC ... END` (its
 * inner semicolons would split it); write bodies as dollar-quoted strings.
 *
 * @example splitStatements("create table t (a text default 'x;y'); select 1; -- done")
 *   // → ["create table t (a text default 'x;y')", 'select 1']
 */
export function splitStatements(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  let hasCode = false;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i];
    const next = text[i + 1];
    if (c === '-' && next === '-') {
      const end = text.indexOf('\n', i);
      i = end < 0 ? n : end + 1;
    } else if (c === '/' && next === '*') {
      i = blockCommentEnd(text, i);
    } else if (c === "'") {
      i = quotedEnd(text, i, isEscapeString(text, i));
      hasCode = true;
    } else if (c === '"') {
      i = quotedEnd(text, i, false);
      hasCode = true;
    } else if (c === '$' && dollarTagAt(text, i) !== null) {
      const tag = dollarTagAt(text, i) as string;
      const end = text.indexOf(tag, i + tag.length);
      i = end < 0 ? n : end + tag.length;
      hasCode = true;
    } else if (c === ';') {
      if (hasCode) out.push(text.slice(start, i).trim());
      start = i + 1;
      hasCode = false;
      i++;
    } else {
      if (!/\s/.test(c)) hasCode = true;
      // A whole identifier or number at once: a `$` inside one (`a$b`) opens no dollar quote.
      WORD.lastIndex = i;
      i = WORD.test(text) ? WORD.lastIndex : i + 1;
    }
  }
  if (hasCode) out.push(text.slice(start).trim());
  return out;
}

const WORD = /[A-Za-z0-9_\u0080-\uffff][A-Za-z0-9_$\u0080-\uffff]*/y;
const DOLLAR_TAG = /\$(?:[A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/y;

/** The index after the `/* ... *\/` comment opening at `i`; comments nest, as in PostgreSQL. */
function blockCommentEnd(text: string, i: number): number {
  let depth = 0;
  while (i < text.length) {
    if (text[i] === '/' && text[i + 1] === '*') {
      depth++;
      i += 2;
    } else if (text[i] === '*' && text[i + 1] === '/') {
      depth--;
      i += 2;
      if (depth === 0) return i;
    } else i++;
  }
  return text.length;
}

/** The index after the quoted string or identifier opening at `i` (doubled quotes stay inside). */
function quotedEnd(text: string, i: number, backslashEscapes: boolean): number {
  const q = text[i];
  let j = i + 1;
  while (j < text.length) {
    const c = text[j];
    if (backslashEscapes && c === '\\') j += 2;
    else if (c === q && text[j + 1] === q) j += 2;
    else if (c === q) return j + 1;
    else j++;
  }
  return text.length;
}

/** `E'...'` (or `e'...'`): the quote at `i` follows a lone `E`, not the end of a longer word. */
function isEscapeString(text: string, i: number): boolean {
  return /[Ee]/.test(text[i - 1] ?? '') && !/[A-Za-z0-9_$\u0080-\uffff]/.test(text[i - 2] ?? '');
}

/** The dollar-quote tag opening at `i` (`$$`, `$tag$`), or null (`$1` is a parameter, not a tag). */
function dollarTagAt(text: string, i: number): string | null {
  DOLLAR_TAG.lastIndex = i;
  return DOLLAR_TAG.exec(text)?.[0] ?? null;
}
