import type { ArrayValue, ColumnMetadata, Field } from '@aws-sdk/client-rds-data';

/**
 * Data API typed records → the row objects the postgres.js driver gives (lib/db/index.ts's type config):
 * int2/int4/int8 as numbers (bigint too: our counts stay below 2^53), float as numbers, numeric as
 * strings, json/jsonb parsed, timestamps and dates as Dates, bytea as Buffers, arrays as arrays; every
 * other type (text, uuid, geometry hex, ...) as its text.
 */

export interface Column {
  name: string;
  /** PostgreSQL type name (`int8`, `jsonb`, `_text` for arrays). */
  type: string;
}

const INTS = new Set(['int2', 'int4', 'int8', 'oid', 'serial', 'bigserial', 'serial4', 'serial8']);
const FLOATS = new Set(['float4', 'float8']);
const TIMES = new Set(['timestamptz', 'timestamp', 'date']);

/** A timestamp text as an instant: the Data API prints them in UTC without an offset. */
export function parseTimestamp(s: string): Date {
  let t = s.trim().replace(' ', 'T');
  if (/^\d{4}-\d{2}-\d{2}$/.test(t)) t += 'T00:00:00';
  if (/[+-]\d{2}$/.test(t)) t += ':00';
  else if (!/(Z|[+-]\d{2}:?\d{2})$/i.test(t)) t += 'Z';
  return new Date(t);
}

/** A scalar given as text or JSON, converted for a column of PostgreSQL type `type` (no leading `_`). */
function fromText(type: string, v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (INTS.has(type) || FLOATS.has(type)) return typeof v === 'number' ? v : Number(v);
  if (type === 'numeric') return String(v);
  if (type === 'bool') return typeof v === 'boolean' ? v : v === 't' || v === 'true';
  if (TIMES.has(type)) return parseTimestamp(String(v));
  if (type === 'bytea') {
    if (typeof v === 'string' && v.startsWith('\\x')) return Buffer.from(v.slice(2), 'hex');
    return Buffer.from(String(v), 'base64');
  }
  if (type === 'json' || type === 'jsonb') return typeof v === 'string' ? JSON.parse(v) : v;
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function fromArray(type: string, a: ArrayValue): unknown[] {
  if (a.arrayValues) return a.arrayValues.map((x) => (x ? fromArray(type, x) : null));
  const list: unknown[] = a.longValues ?? a.doubleValues ?? a.booleanValues ?? a.stringValues ?? [];
  return list.map((x) => fromText(type, x));
}

/** One typed field of a column of PostgreSQL type `type`. */
export function fromField(type: string, f: Field): unknown {
  if (f.isNull) return null;
  if (type.startsWith('_')) {
    if (f.arrayValue) return fromArray(type.slice(1), f.arrayValue);
    return f.stringValue ?? null;
  }
  if (f.blobValue !== undefined) return Buffer.from(f.blobValue);
  if (f.longValue !== undefined) return fromText(type, f.longValue);
  if (f.doubleValue !== undefined) return fromText(type, f.doubleValue);
  if (f.booleanValue !== undefined) return f.booleanValue;
  if (f.stringValue !== undefined) return fromText(type, f.stringValue);
  if (f.arrayValue) return fromArray(type, f.arrayValue);
  return null;
}

/** A value read back from `to_jsonb(row)` (the oversize path), for a column of type `type`. */
export function fromJson(type: string, v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (type.startsWith('_')) {
    const base = type.slice(1);
    const walk = (x: unknown): unknown => (Array.isArray(x) ? x.map(walk) : fromText(base, x));
    return walk(v);
  }
  if (type === 'json' || type === 'jsonb') return v;
  return fromText(type, v);
}

export function columnsOf(meta: ColumnMetadata[] | undefined): Column[] {
  return (meta ?? []).map((m) => ({
    name: m.label ?? m.name ?? '?column?',
    type: (m.typeName ?? '').toLowerCase(),
  }));
}

export function rowsOf(columns: Column[], records: Field[][] | undefined): Record<string, unknown>[] {
  return (records ?? []).map((rec) => {
    const row: Record<string, unknown> = {};
    columns.forEach((c, i) => {
      row[c.name] = fromField(c.type, rec[i] ?? { isNull: true });
    });
    return row;
  });
}
