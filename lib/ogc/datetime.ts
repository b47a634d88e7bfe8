import { badRequest } from '#lib/errors.ts';
import { addIsoDuration, parseIsoDuration } from '#lib/iso8601.ts';

/**
 * The `datetime` parameter of the items (OGC API – Features Part 1, docs/ogc.md "datetime"): an RFC 3339
 * date-time or date, or an interval `start/end` whose ends may be open (`..` or empty). A date alone
 * stands for its whole day (UTC). One end of an interval may be an ISO 8601 duration instead
 * (`2022-04-16/P2D`, `P1M/2024-05-01T00:00:00Z`: ISO 8601's start-and-duration and duration-and-end forms,
 * which the OGC test suite sends): the other end is the given one moved by it. Answers the window as ISO
 * instants (`start` absent: open start).
 */
export interface DatetimeWindow {
  start?: string;
  end?: string;
}

/** RFC 3339 `date-time`: hours 00–23, minutes 00–59, seconds 00–60 (a leap second), offsets ±00:00–23:59. */
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt]([01]\d|2[0-3]):([0-5]\d):([0-5]\d|60)(\.\d+)?([Zz]|([+-])([01]\d|2[0-3]):([0-5]\d))$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Epoch milliseconds of a real calendar day (RFC 3339's years 0000–9999), or NaN (`2024-02-30`). */
function dayMs(y: string, m: string, d: string): number {
  const [Y, M, D] = [y, m, d].map(Number);
  const day = new Date(0);
  day.setUTCFullYear(Y, M - 1, D);
  const real = day.getUTCFullYear() === Y && day.getUTCMonth() === M - 1 && day.getUTCDate() === D;
  return real ? day.getTime() : Number.NaN;
}

/**
 * An RFC 3339 date-time or full-date as epoch milliseconds (a date: its first or last millisecond, UTC).
 * A leap second (`:60`) is the next minute's first second, as PostgreSQL reads it (docs/ogc.md, "datetime").
 */
function instantMs(t: string, which: 'start' | 'end'): number {
  const date = DATE.exec(t);
  if (date) return dayMs(date[1], date[2], date[3]) + (which === 'end' ? 86_400_000 - 1 : 0);
  const m = DATE_TIME.exec(t);
  if (!m) return Number.NaN;
  const [, y, mo, d, h, mi, sec, frac = '', , sign, oh, om] = m;
  const ms = Number(frac.slice(1, 4).padEnd(3, '0'));
  const offset = sign ? (sign === '+' ? 1 : -1) * (Number(oh) * 60 + Number(om)) * 60_000 : 0;
  return dayMs(y, mo, d) + ((Number(h) * 60 + Number(mi)) * 60 + Number(sec)) * 1000 + ms - offset;
}

/** The instants the database reads (years 0001–9999): RFC 3339 allows year 0000, PostgreSQL does not. */
const FIRST_MS = -62_135_596_800_000; // 0001-01-01T00:00:00Z (Date.UTC reads years 0-99 as 1900-1999)
const LAST_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * An interval end as ISO text, or undefined for an open end. A start before year 0001 is open (QGIS sends
 * `0000-01-01T00:00:00Z` for "no start"), an end after 9999 open too (QGIS: `9999-12-31T00:00:00Z`).
 */
function instant(text: string, which: 'start' | 'end'): string | undefined {
  let ms = instantMs(text.trim(), which);
  if (!Number.isFinite(ms)) {
    throw badRequest(
      `'datetime' ${JSON.stringify(text).slice(0, 60)} is not an RFC 3339 date-time (2024-05-01T12:00:00Z) or date (2024-05-01).`,
    );
  }
  if (which === 'start' && ms < FIRST_MS) return undefined;
  if (which === 'end' && ms > LAST_MS) return undefined;
  if (which === 'end' && ms < FIRST_MS) throw badRequest(`'datetime' ends before the year 0001.`);
  ms = Math.min(ms, LAST_MS);
  return new Date(ms).toISOString();
}

export function parseDatetime(value: string): DatetimeWindow {
  const parts = value.split('/');
  if (parts.length === 1) {
    const one = value.trim();
    if (one === '..' || one === '') throw badRequest(`'datetime' must be an instant or an interval.`);
    return { start: instant(one, 'start'), end: instant(one, 'end') };
  }
  if (parts.length !== 2) throw badRequest(`'datetime' has more than one '/'.`);
  const open = (s: string) => s.trim() === '' || s.trim() === '..';
  const isDuration = (s: string) => /^\s*P/i.test(s);
  if (isDuration(parts[0]) && isDuration(parts[1]))
    throw badRequest(`'datetime' cannot be two durations: give a start or an end.`);
  if (isDuration(parts[0])) return durationWindow(parts[1], parts[0], 'end');
  if (isDuration(parts[1])) return durationWindow(parts[0], parts[1], 'start');
  const out: DatetimeWindow = {};
  if (!open(parts[0])) out.start = instant(parts[0], 'start');
  if (!open(parts[1])) out.end = instant(parts[1], 'end');
  if (out.start && out.end && out.start > out.end) throw badRequest(`'datetime' starts after it ends.`);
  return out;
}

/**
 * An interval of one instant and a duration: `given` is its start (`which`) or its end, the other end is
 * it moved by the duration (a date as a start is its first millisecond, as an end its last).
 */
function durationWindow(given: string, duration: string, which: 'start' | 'end'): DatetimeWindow {
  const d = parseIsoDuration(duration);
  if (!d) {
    throw badRequest(
      `'datetime' ${JSON.stringify(duration.trim()).slice(0, 60)} is not an ISO 8601 duration (P2D, PT12H, P1Y2M).`,
    );
  }
  if (given.trim() === '' || given.trim() === '..')
    throw badRequest(`'datetime' with a duration needs a ${which}, not an open end.`);
  const ms = instantMs(given.trim(), which);
  const known = instant(given, which);
  const other = addIsoDuration(new Date(ms).toISOString(), d, which === 'start' ? 1 : -1);
  if (!Number.isFinite(ms) || !Number.isFinite(other))
    throw badRequest(`'datetime' ends beyond the years 0001–9999.`);
  const iso = (t: number) => new Date(Math.min(Math.max(t, FIRST_MS), LAST_MS)).toISOString();
  return which === 'start' ? { start: known, end: iso(other) } : { start: iso(other), end: known };
}
