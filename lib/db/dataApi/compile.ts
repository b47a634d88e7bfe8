import type { SqlParameter } from '@aws-sdk/client-rds-data';

/**
 * The postgres.js tagged-template surface, compiled for the RDS Data API (docs/deploying.md):
 * `sql\`...${v}\`` binds `v` as a named parameter `:pN`; a nested `sql\`...\`` fragment is inlined with its
 * own parameters; `sql('name')` is a quoted identifier (dots separate qualified names, as in postgres.js);
 * `sql.json(v)` is a JSON parameter; `sql.unsafe(text, [values])` takes postgres.js's `$1..$n` text.
 */

/** A quoted identifier from `sql('name')`. */
export class Identifier {
  constructor(readonly text: string) {}
}

/** A value with an explicit JSON type (`sql.json(v)`). */
export class JsonValue {
  constructor(readonly value: unknown) {}
}

/** Anything that can be inlined into a statement: a template fragment or `unsafe` text. */
export interface Inlinable {
  build(out: Compiled): void;
}

export interface Compiled {
  text: string;
  values: unknown[];
}

export function quoteIdentifier(name: string): string {
  return name
    .split('.')
    .map((p) => `"${p.replace(/"/g, '""')}"`)
    .join('.');
}

export function isInlinable(v: unknown): v is Inlinable {
  return typeof (v as Inlinable)?.build === 'function';
}

/** Appends a template's strings and values to `out`: fragments inline, everything else becomes `:pN`. */
export function buildTemplate(out: Compiled, strings: readonly string[], values: readonly unknown[]): void {
  out.text += strings[0];
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (isInlinable(v)) v.build(out);
    else if (v instanceof Identifier) out.text += v.text;
    else if (v === undefined) throw new Error('UNDEFINED_VALUE: undefined values are not allowed');
    else {
      out.values.push(v);
      out.text += `:p${out.values.length}`;
    }
    out.text += strings[i + 1];
  }
}

/** `unsafe` text: postgres.js's `$n` placeholders renumbered after the parameters already in `out`. */
export function buildUnsafe(out: Compiled, text: string, values: readonly unknown[]): void {
  const base = out.values.length;
  if (values.length === 0) {
    out.text += text;
    return;
  }
  out.text += text.replace(/\$(\d+)/g, (_, n) => `:p${base + Number(n)}`);
  out.values.push(...values);
}

function isPlainObject(v: unknown): boolean {
  return (
    typeof v === 'object' &&
    v !== null &&
    !Array.isArray(v) &&
    !(v instanceof Date) &&
    !(v instanceof Uint8Array) &&
    !(v instanceof JsonValue)
  );
}

function arrayElement(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (Array.isArray(v)) return arrayLiteral(v);
  if (typeof v === 'boolean') return v ? 't' : 'f';
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  const s = v instanceof Date ? v.toISOString() : String(v);
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** A PostgreSQL array literal: the Data API takes no array parameters, so SQL casts this text. */
export function arrayLiteral(values: readonly unknown[]): string {
  return `{${values.map(arrayElement).join(',')}}`;
}

/** UTC `YYYY-MM-DD HH:MM:SS.fff`, the Data API's TIMESTAMP form. */
export function timestampText(d: Date): string {
  return d.toISOString().replace('T', ' ').replace('Z', '');
}

/**
 * One value as a Data API parameter: strings, numbers (integers as `longValue`), booleans, null, Buffers
 * (`blobValue`), Dates (`TIMESTAMP`, UTC), `sql.json` and arrays of plain objects (`JSON` text, as
 * postgres.js serializes them), other arrays as an array literal string (the SQL casts it, `::text[]`).
 */
export function toParameter(name: string, v: unknown): SqlParameter {
  if (v === null) return { name, value: { isNull: true } };
  if (v instanceof JsonValue)
    return { name, value: { stringValue: JSON.stringify(v.value) }, typeHint: 'JSON' };
  if (typeof v === 'string') return { name, value: { stringValue: v } };
  if (typeof v === 'boolean') return { name, value: { booleanValue: v } };
  if (typeof v === 'bigint') return { name, value: { stringValue: v.toString() }, typeHint: 'DECIMAL' };
  if (typeof v === 'number') {
    if (Number.isSafeInteger(v)) return { name, value: { longValue: v } };
    if (Number.isFinite(v)) return { name, value: { doubleValue: v } };
    return { name, value: { stringValue: String(v) } };
  }
  if (v instanceof Date) return { name, value: { stringValue: timestampText(v) }, typeHint: 'TIMESTAMP' };
  if (v instanceof Uint8Array) return { name, value: { blobValue: v } };
  if (Array.isArray(v)) {
    if (v.some(isPlainObject)) return { name, value: { stringValue: JSON.stringify(v) }, typeHint: 'JSON' };
    return { name, value: { stringValue: arrayLiteral(v) } };
  }
  if (isPlainObject(v)) return { name, value: { stringValue: JSON.stringify(v) }, typeHint: 'JSON' };
  throw new Error(`cannot bind a value of type ${typeof v}`);
}

export function toParameters(values: readonly unknown[]): SqlParameter[] {
  return values.map((v, i) => toParameter(`p${i + 1}`, v));
}
