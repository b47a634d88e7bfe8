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

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function instant(text: string, which: 'start' | 'end'): string {
  const t = text.trim();
  const date = DATE.exec(t);
  const ms = date
    ? Date.parse(`${t}T00:00:00Z`) + (which === 'end' ? 86_400_000 - 1 : 0)
    : DATE_TIME.test(t)
      ? Date.parse(t)
      : Number.NaN;
  // A rolled-over date (2024-02-30) parses to another day: compared back with the text's own date.
  const ymd = (date ?? DATE_TIME.exec(t))?.slice(1, 4).join('-');
  const iso = Number.isFinite(ms) ? new Date(ms).toISOString() : undefined;
  const sameDay = date ? iso?.slice(0, 10) === ymd : Number.isFinite(ms);
  if (!iso || !sameDay) {
    throw badRequest(
      `'datetime' ${JSON.stringify(text).slice(0, 60)} is not an RFC 3339 date-time (2024-05-01T12:00:00Z) or date (2024-05-01).`,
    );
  }
  return iso;
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
