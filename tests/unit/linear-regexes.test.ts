import { describe, expect, it } from 'vitest';
import { configSchema } from '#lib/configure/schema.ts';
import { neutralizeFormula } from '#lib/datasets/csv.ts';
import { MAX_STORED_TIME_CHARS, parseIsoDuration, parseIsoInstant, parseIsoTimestamp } from '#lib/iso8601.ts';

/**
 * The regexes that read values a client stored take time linear in the value's length. Each of these
 * texts, 200,000 characters long, took over a minute in a regex that backtracked quadratically (white
 * space on both sides of an optional part, `\d+\.?\d*`); linear, each takes milliseconds. The bound is
 * generous (a loaded machine), far below the quadratic time.
 */
const N = 200_000;
const BOUND_MS = 2000;
const spaces = ' '.repeat(N);
const digits = '1'.repeat(N);

function took(f: () => unknown): number {
  const t = performance.now();
  f();
  return performance.now() - t;
}

describe('the stored-value time profile (lib/iso8601.ts)', () => {
  const texts = {
    'a date, spaces, a letter': `2024-01-01${spaces}x`,
    'a date-time, spaces, a zone, spaces, a letter': `2024-01-01T00:00${spaces}Z${spaces}x`,
    'spaces around a date': `${spaces}2024-01-01${spaces}`,
    'only spaces': spaces,
    'a fraction of 200,000 digits, then a letter': `2024-01-01T00:00:00.${digits}x`,
  };

  it.each(Object.entries(texts))('reads %s (200,000+ characters) in linear time as no time', (_, text) => {
    expect(took(() => expect(parseIsoTimestamp(text)).toBeUndefined())).toBeLessThan(BOUND_MS);
    expect(took(() => parseIsoInstant(text))).toBeLessThan(BOUND_MS);
  });

  it('reads a 200,000-digit or space-padded duration (a datetime interval bound) in linear time as none', () => {
    for (const text of [
      `P${digits}D`,
      `PT${digits}.${digits}S`,
      `${spaces}P2D${spaces}x`,
      `P${'1Y'.repeat(N / 2)}`,
    ])
      expect(took(() => expect(parseIsoDuration(text)).toBeUndefined())).toBeLessThan(BOUND_MS);
    expect(parseIsoDuration(' P2D ')).toEqual({ months: 0, days: 2, ms: 0 });
  });

  it(`reads white space around a time up to ${MAX_STORED_TIME_CHARS} characters in all, no longer`, () => {
    const padded = (n: number) => {
      const core = '2024-01-02T03:04 Z';
      const left = ' '.repeat(Math.floor((n - core.length) / 2));
      return `${left}${core}${' '.repeat(n - core.length - left.length)}`;
    };
    expect(padded(MAX_STORED_TIME_CHARS)).toHaveLength(MAX_STORED_TIME_CHARS);
    expect(parseIsoTimestamp(padded(MAX_STORED_TIME_CHARS))).toBe('2024-01-02T03:04:00.000Z');
    expect(parseIsoTimestamp(padded(MAX_STORED_TIME_CHARS + 1))).toBeUndefined();
    expect(parseIsoTimestamp(' \t2024-01-02 03:04:05.5 +01:30\n')).toBe('2024-01-02T01:34:05.500Z');
    expect(parseIsoTimestamp('2024-01-02 x')).toBeUndefined();
  });
});

describe('a CSV download cell that begins with a minus (lib/datasets/csv.ts)', () => {
  it('is told from a negative number in linear time', () => {
    expect(took(() => expect(neutralizeFormula(`-${digits}x`)).toBe(`'-${digits}x`))).toBeLessThan(BOUND_MS);
    expect(took(() => expect(neutralizeFormula(`-${digits}`)).toBe(`-${digits}`))).toBeLessThan(BOUND_MS);
    expect(neutralizeFormula('-1.5e3')).toBe('-1.5e3');
    expect(neutralizeFormula('-2.')).toBe('-2.');
    expect(neutralizeFormula('-1+2')).toBe("'-1+2");
  });
});

describe('the patterns of the published configuration schema (lib/configure/schema.ts)', () => {
  const patterns = new Set<string>();
  const walk = (s: unknown): void => {
    if (Array.isArray(s)) s.forEach(walk);
    else if (s && typeof s === 'object') {
      for (const [k, v] of Object.entries(s)) {
        if (k === 'pattern' && typeof v === 'string') patterns.add(v);
        else walk(v);
      }
    }
  };
  walk(configSchema);
  const texts = [`${digits}x`, `-${digits}x`, ` ${digits} x`, `${spaces}x`, `${digits}.${digits}x`];

  it.each([...patterns])('%s matches in linear time', (pattern) => {
    // The `u` flag, as JSON Schema validators (ajv) compile a pattern.
    const re = new RegExp(pattern, 'u');
    for (const text of texts) expect(took(() => re.test(text))).toBeLessThan(BOUND_MS);
  });

  it('found the numeric patterns', () => {
    expect([...patterns].filter((p) => p.includes('\\d')).length).toBeGreaterThanOrEqual(2);
  });
});
