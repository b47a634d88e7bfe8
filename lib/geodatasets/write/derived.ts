import { parseIsoTimestamp } from '#lib/iso8601.ts';

/**
 * The derived columns of a stored feature (docs/contract.md#4-geodatasets-api, docs/contract.md#5-edge-cases-decided): start_time/end_time parsed from the
 * named property (a JSON number is epoch milliseconds, a string must be ISO 8601; anything else is NULL),
 * group_id/feature_id from one property or several comma-separated ones joined with ','.
 */

/** A property by exact key first, then by dot path (`a.b.c`). */
export function readPath(props: Record<string, unknown>, path: string): unknown {
  if (Object.hasOwn(props, path)) return props[path];
  if (!path.includes('.')) return undefined;
  let cur: unknown = props;
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return undefined;
    if (!Object.hasOwn(cur as object, part)) return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

const MAX_MS = 8.64e15;

/**
 * A time property's value as ISO text for the database, or null: a JSON number is epoch milliseconds, a
 * string is read by the stored-value profile of lib/iso8601.ts (zone-less times are UTC).
 */
export function toTimestamp(v: unknown): string | null {
  if (typeof v === 'number') {
    if (!Number.isFinite(v) || Math.abs(v) > MAX_MS) return null;
    return new Date(v).toISOString();
  }
  return typeof v === 'string' ? (parseIsoTimestamp(v) ?? null) : null;
}

function toText(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

/**
 * `group_id`/`feature_id`: the named property as text; with several comma-separated names, their values
 * joined with ',' in the order given (a missing one contributes ''); NULL when none of them has a value.
 */
export function toIdText(props: Record<string, unknown>, names: string[]): string | null {
  if (names.length === 1) return toText(readPath(props, names[0]));
  let any = false;
  const parts = names.map((n) => {
    const t = toText(readPath(props, n));
    if (t !== null) any = true;
    return t ?? '';
  });
  return any ? parts.join(',') : null;
}

/** The comma-separated prop list of a group/feature id option, trimmed, empty entries dropped. */
export function splitProps(p: string | null | undefined): string[] {
  if (!p) return [];
  return p
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

export interface Derive {
  start: string | null;
  end: string | null;
  group: string[];
  feature: string[];
}

/** Short keys keep the batch JSON small: s → start_time, e → end_time, gi → group_id, fi → feature_id. */
export interface DerivedColumns {
  s?: string;
  e?: string;
  gi?: string;
  fi?: string;
}

/** Fills `row` with the derived columns that are not NULL (absent keys are NULL in json_to_recordset). */
export function deriveColumns(props: Record<string, unknown>, d: Derive, row: DerivedColumns): void {
  if (d.start) {
    const t = toTimestamp(readPath(props, d.start));
    if (t !== null) row.s = t;
  }
  if (d.end) {
    const t = toTimestamp(readPath(props, d.end));
    if (t !== null) row.e = t;
  }
  if (d.group.length) {
    const g = toIdText(props, d.group);
    if (g !== null) row.gi = g;
  }
  if (d.feature.length) {
    const f = toIdText(props, d.feature);
    if (f !== null) row.fi = f;
  }
}
