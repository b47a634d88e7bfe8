/**
 * A lazy reader of JSON text: it finds where values start and end without building them, so a 39 MB
 * GeoJSON body is never held as one parsed object. Each feature is then `JSON.parse`d on its own slice
 * (which also validates it), a batch at a time. Structure between values (braces, commas, colons) is
 * checked here; malformed text throws `JsonScanError` with the character offset.
 */
export class JsonScanError extends Error {
  constructor(
    message: string,
    public readonly offset: number,
  ) {
    super(`${message} at character ${offset}`);
    this.name = 'JsonScanError';
  }
}

export interface Span {
  start: number;
  end: number;
}

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);

export function skipWs(s: string, i: number): number {
  while (i < s.length && WS.has(s.charCodeAt(i))) i++;
  return i;
}

/** The offset just after the string literal whose opening quote is at `i`. */
function skipString(s: string, i: number): number {
  let j = i;
  for (;;) {
    j = s.indexOf('"', j + 1);
    if (j < 0) throw new JsonScanError('Unterminated string', i);
    let k = j - 1;
    while (s.charCodeAt(k) === 0x5c) k--;
    if ((j - k) % 2 === 1) return j + 1; // an even number of backslashes before the quote
  }
}

/** The offset just after the JSON value starting at `i` (no leading whitespace). */
export function skipValue(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c === 0x22) return skipString(s, i);
  if (c === 0x7b || c === 0x5b) {
    let depth = 0;
    let j = i;
    while (j < s.length) {
      const d = s.charCodeAt(j);
      if (d === 0x22) {
        j = skipString(s, j);
        continue;
      }
      if (d === 0x7b || d === 0x5b) depth++;
      else if (d === 0x7d || d === 0x5d) {
        depth--;
        if (depth === 0) return j + 1;
      }
      j++;
    }
    throw new JsonScanError('Unterminated object or array', i);
  }
  // number, true, false, null
  let j = i;
  while (j < s.length) {
    const d = s.charCodeAt(j);
    if (d === 0x2c || d === 0x7d || d === 0x5d || WS.has(d)) break;
    j++;
  }
  if (j === i) throw new JsonScanError('Expected a value', i);
  return j;
}

/** Parses one value's slice (small values: names, props, single features). */
export function parseSpan(s: string, span: Span): unknown {
  try {
    return JSON.parse(s.slice(span.start, span.end));
  } catch (e) {
    throw new JsonScanError(`Invalid JSON value (${(e as Error).message})`, span.start);
  }
}

/** The members of the object starting at `i` (after whitespace): key → value span. Duplicate keys: last wins. */
export function objectMembers(s: string, i: number): { members: Map<string, Span>; end: number } {
  i = skipWs(s, i);
  if (s.charCodeAt(i) !== 0x7b) throw new JsonScanError('Expected an object', i);
  const members = new Map<string, Span>();
  i = skipWs(s, i + 1);
  if (s.charCodeAt(i) === 0x7d) return { members, end: i + 1 };
  for (;;) {
    if (s.charCodeAt(i) !== 0x22) throw new JsonScanError('Expected a member name', i);
    const keyEnd = skipString(s, i);
    const key = JSON.parse(s.slice(i, keyEnd)) as string;
    i = skipWs(s, keyEnd);
    if (s.charCodeAt(i) !== 0x3a) throw new JsonScanError("Expected ':'", i);
    i = skipWs(s, i + 1);
    const end = skipValue(s, i);
    members.set(key, { start: i, end });
    i = skipWs(s, end);
    const c = s.charCodeAt(i);
    if (c === 0x7d) return { members, end: i + 1 };
    if (c !== 0x2c) throw new JsonScanError("Expected ',' or '}'", i);
    i = skipWs(s, i + 1);
  }
}

/** The element spans of the array starting at `span.start`, lazily. */
export function* arrayElements(s: string, span: Span): Generator<Span> {
  let i = skipWs(s, span.start);
  if (s.charCodeAt(i) !== 0x5b) throw new JsonScanError('Expected an array', i);
  i = skipWs(s, i + 1);
  if (s.charCodeAt(i) === 0x5d) return;
  for (;;) {
    const end = skipValue(s, i);
    yield { start: i, end };
    i = skipWs(s, end);
    const c = s.charCodeAt(i);
    if (c === 0x5d) return;
    if (c !== 0x2c) throw new JsonScanError("Expected ',' or ']'", i);
    i = skipWs(s, i + 1);
  }
}

/** Reads the whole text as one top-level object; anything after it but whitespace is an error. */
export function topLevelObject(s: string): Map<string, Span> {
  const { members, end } = objectMembers(s, 0);
  const rest = skipWs(s, end);
  if (rest !== s.length) throw new JsonScanError('Unexpected text after the JSON object', rest);
  return members;
}
