import { badRequest } from '#lib/errors.ts';

/**
 * The `datetime` parameter of the items (OGC API – Features Part 1, docs/ogc.md "datetime"): an RFC 3339
 * date-time or date, or an interval `start/end` whose ends may be open (`..` or empty). A date alone
 * stands for its whole day (UTC). Answers the window as ISO instants (`start` absent: open start).
 */
export interface DatetimeWindow {
  start?: string;
  end?: string;
}

/** RFC 3339 `date-time`: hours 00–23, minutes 00–59, seconds 00–60 (a leap second), offsets ±00:00–23:59. */
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt]([01]\d|2[0-3]):([0-5]\d):([0-5]\d|60)(\.\d+)?([Zz]|([+-])([01]\d|2[0-3]):([0-5]\d))$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Epoch milliseconds of a real calendar day (year 0001 or later), or NaN (`2024-02-30`, `0000-01-01`). */
function dayMs(y: string, m: string, d: string): number {
  const [Y, M, D] = [y, m, d].map(Number);
  const day = new Date(0);
  day.setUTCFullYear(Y, M - 1, D);
  const real = Y > 0 && day.getUTCFullYear() === Y && day.getUTCMonth() === M - 1 && day.getUTCDate() === D;
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

function instant(text: string, which: 'start' | 'end'): string {
  const ms = instantMs(text.trim(), which);
  if (!Number.isFinite(ms) || Math.abs(ms) > 8.64e15) {
    throw badRequest(
      `'datetime' ${JSON.stringify(text).slice(0, 60)} is not an RFC 3339 date-time (2024-05-01T12:00:00Z) or date (2024-05-01).`,
    );
  }
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
  const out: DatetimeWindow = {};
  if (!open(parts[0])) out.start = instant(parts[0], 'start');
  if (!open(parts[1])) out.end = instant(parts[1], 'end');
  if (out.start && out.end && out.start > out.end) throw badRequest(`'datetime' starts after it ends.`);
  return out;
}
