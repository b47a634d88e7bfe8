/**
 * ISO 8601 times: the one grammar of the service. Two profiles of it, both ending in the same range check
 * (`instant`: the month's real days, offset hours ≤ 23 and minutes ≤ 59; a time without an offset is UTC):
 *
 * - **a time a client sends** (`parseIsoInstant`: `starttime`/`endtime` of the geodataset reads and of the
 *   tileset times): any ISO 8601 date or date-time, extended or basic format, reduced precision (`2024`,
 *   `2024-01`), `T` (any case) or a space, a fraction after `.` or `,`, `Z` or `±hh[:mm]`; `24:00` ends a
 *   day and a leap second `:60` is the next minute's first second (docs/geodatasets-read.md, "Time").
 * - **a time stored in a feature property** (`parseIsoTimestamp` for the derived columns on ingest and the
 *   tileset folder names; `ISO_TIMESTAMP_SQL` for the per-feature read in the database): the complete
 *   extended date `YYYY-MM-DD`, an optional `T`/space time `hh:mm[:ss[.f]]` (hour 00–23), an optional `Z`
 *   or `±hh[:mm]`, whitespace around the text and before the zone ignored (docs/geodatasets-write.md,
 *   "Props and derived columns"). Its pattern is written once, in the regex dialect JavaScript and
 *   PostgreSQL share, so the write and the per-feature read accept the same texts. A text longer than
 *   `MAX_STORED_TIME_CHARS` (white space included) is no time in either.
 *
 * Both return the instant as ISO text with milliseconds (a longer fraction is truncated), or undefined.
 *
 * And ISO 8601 **durations** (`parseIsoDuration`, `addIsoDuration`), for an interval given as a start and a
 * duration (`2022-04-16/P2D`) or a duration and an end: `PnYnMnWnDTnHnMnS`, each part optional but one,
 * the seconds with a fraction.
 */

const REQUEST =
  /^(\d{4})(?:-?(\d{2})(?:-?(\d{2})(?:[T ](\d{2})(?::?(\d{2})(?::?(\d{2})(?:[.,](\d+))?)?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?)?)?$/i;

const STORED_DATE_TIME =
  '(\\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])(?:[T ]([01]\\d|2[0-3]):([0-5]\\d)(?::([0-5]\\d)(?:\\.(\\d+))?)?)?';
const STORED_OFFSET = '(Z|z|[+-](?:[01]\\d|2[0-3])(?::?[0-5]\\d)?)';
/**
 * Matched against the trimmed text: linear in its length. The form with white space inside the pattern on
 * both sides of the optional zone (`\\s*(zone)?\\s*$`) backtracked quadratically: a date followed by
 * 200,000 spaces and one letter took over a minute.
 */
const STORED = new RegExp(`^${STORED_DATE_TIME}\\s*${STORED_OFFSET}?$`);

/**
 * The longest text the stored-value profile reads (white space around it included): a complete time with
 * a nanosecond fraction and an offset is 35 characters, so a longer value is a mistake, never a time.
 */
export const MAX_STORED_TIME_CHARS = 100;

/**
 * The stored-value profile as PostgreSQL regexes: a text matching `withOffset` is cast `::timestamptz`,
 * one matching `withoutOffset` is cast `::timestamp at time zone 'UTC'` (the cast accepts every text these
 * match; a rolled-over date such as `2024-02-30` still fails it, which the read reports as a 400). The
 * caller checks `MAX_STORED_TIME_CHARS` first. PostgreSQL's regex engine does not backtrack on these
 * (a 200,000-character text is matched in milliseconds), so they keep the white space in the pattern.
 */
export const ISO_TIMESTAMP_SQL = {
  withOffset: `^\\s*${STORED_DATE_TIME}\\s*${STORED_OFFSET}\\s*$`,
  withoutOffset: `^\\s*${STORED_DATE_TIME}\\s*$`,
} as const;

/** A time a client sends (see above) → ISO instant, or undefined when it is not a valid one. */
export function parseIsoInstant(text: string): string | undefined {
  const m = REQUEST.exec(text.trim());
  if (!m) return undefined;
  const [, y, mo = '01', d = '01', h = '00', mi = '00', s = '00', frac = '', off] = m;
  if (Number(s) > 60 || (Number(h) === 24 && (Number(mi) !== 0 || Number(s) !== 0))) return undefined;
  // A leap second is the next minute's first second, as PostgreSQL (and the CQL2 TIMESTAMP) reads it.
  if (Number(s) === 60) {
    const t = instant(y, mo, d, h, mi, 59, frac, off);
    return t && new Date(Date.parse(t) + 1000).toISOString();
  }
  return instant(y, mo, d, h, mi, Number(s), frac, off);
}

/** A time stored in a feature property (see above) → ISO instant, or undefined. */
export function parseIsoTimestamp(text: string): string | undefined {
  if (text.length > MAX_STORED_TIME_CHARS) return undefined;
  // trim() removes exactly the characters `\s` matches (ECMAScript's WhiteSpace and LineTerminator).
  const m = STORED.exec(text.trim());
  if (!m) return undefined;
  const [, y, mo, d, h = '00', mi = '00', s = '00', frac = '', off] = m;
  return instant(y, mo, d, h, mi, Number(s), frac, off);
}

/** The range check and arithmetic of both profiles. */
function instant(
  y: string,
  mo: string,
  d: string,
  h: string,
  mi: string,
  s: number,
  frac: string,
  off: string | undefined,
): string | undefined {
  const [Y, M, D, H, MI] = [y, mo, d, h, mi].map(Number);
  if (M < 1 || M > 12 || D < 1 || D > 31 || H > 24 || MI > 59 || s > 59) return undefined;
  const day = new Date(0);
  day.setUTCFullYear(Y, M - 1, D);
  if (day.getUTCFullYear() !== Y || day.getUTCMonth() !== M - 1 || day.getUTCDate() !== D) return undefined;
  let t = day.getTime() + ((H * 60 + MI) * 60 + s) * 1000 + Number(frac.slice(0, 3).padEnd(3, '0'));
  if (off && off.toUpperCase() !== 'Z') {
    const om = /^([+-])(\d{2}):?(\d{2})?$/.exec(off)!;
    const [oh, omin] = [Number(om[2]), Number(om[3] ?? 0)];
    if (oh > 23 || omin > 59) return undefined;
    t -= (om[1] === '+' ? 1 : -1) * (oh * 60 + omin) * 60000;
  }
  // The years the database reads (0001–9999): an offset can carry 9999-12-31 into 10000.
  const iso = new Date(t).toISOString();
  return /^\d{4}-/.test(iso) && !iso.startsWith('0000') ? iso : undefined;
}

/**
 * `PnYnMnWnDTnHnMnS`: every part a run of digits ending at its own letter, so a text matches or fails in
 * time linear in its length (no two adjacent parts can share characters).
 */
const DURATION =
  /^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:[.,]\d+)?)S)?)?$/i;

/** The longest duration text read: longer is a mistake, never a duration. */
const MAX_DURATION_CHARS = 60;

/** An ISO 8601 duration: calendar years and months, then days and a time of milliseconds. */
export interface IsoDuration {
  months: number;
  days: number;
  ms: number;
}

/** An ISO 8601 duration (see above), or undefined when the text is not one (`P`, `PT`, `P1H`). */
export function parseIsoDuration(text: string): IsoDuration | undefined {
  const t = text.trim();
  if (t.length > MAX_DURATION_CHARS) return undefined;
  const m = DURATION.exec(t);
  if (!m || m.slice(1).every((p) => p === undefined) || /T$/i.test(t)) return undefined;
  const n = (i: number) => Number((m[i] ?? '0').replace(',', '.'));
  return {
    months: n(1) * 12 + n(2),
    days: n(3) * 7 + n(4),
    ms: Math.round(((n(5) * 60 + n(6)) * 60 + n(7)) * 1000),
  };
}

/**
 * An ISO instant moved by a duration, forward (`sign` 1) or back (-1): the months first (a day past the
 * new month's end is its last day, as ISO 8601's calendar arithmetic has it), then days and time. NaN
 * past the years JavaScript reads.
 */
export function addIsoDuration(iso: string, d: IsoDuration, sign: 1 | -1): number {
  const t = new Date(iso);
  const day = t.getUTCDate();
  t.setUTCDate(1);
  t.setUTCMonth(t.getUTCMonth() + sign * d.months);
  const lastOfMonth = new Date(0);
  lastOfMonth.setUTCFullYear(t.getUTCFullYear(), t.getUTCMonth() + 1, 0);
  t.setUTCDate(Math.min(day, lastOfMonth.getUTCDate()));
  return t.getTime() + sign * (d.days * 86_400_000 + d.ms);
}
