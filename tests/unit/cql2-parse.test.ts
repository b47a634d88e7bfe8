import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseCql2 } from '#lib/cql2/filter.ts';
import { CQL2_LIMITS } from '#lib/cql2/limits.ts';
import { HttpError } from '#lib/errors.ts';

const examples: { name: string; text: string; json: unknown }[] = JSON.parse(
  readFileSync(new URL('../fixtures/cql2/examples.json', import.meta.url), 'utf8'),
);

function error(fn: () => unknown): HttpError {
  try {
    fn();
  } catch (e) {
    if (e instanceof HttpError) return e;
    throw e;
  }
  throw new Error('did not throw');
}

describe('the CQL2 standard examples (tests/fixtures/cql2)', () => {
  it('has the examples', () => {
    expect(examples.length).toBeGreaterThan(100);
  });
  for (const ex of examples) {
    it(`${ex.name}: cql2-text and cql2-json parse to the same AST`, () => {
      const fromText = parseCql2(ex.text, 'cql2-text');
      const fromJson = parseCql2(ex.json, 'cql2-json');
      const fromJsonText = parseCql2(JSON.stringify(ex.json), 'cql2-json');
      expect(fromText).toEqual(fromJson);
      expect(fromJsonText).toEqual(fromJson);
    });
  }
});

describe('cql2-text', () => {
  const same: [string, string][] = [
    ['a = 1 AND b = 2 AND c = 3', '(a = 1 AND b = 2) AND c = 3'],
    ['NOT a = 1 OR b = 2', '(NOT (a = 1)) OR (b = 2)'],
    ['a = 1 OR b = 2 AND c = 3', 'a = 1 OR (b = 2 AND c = 3)'],
    ["name like 'x%'", "name LIKE 'x%'"],
    ['x is not null', 'NOT x IS NULL'],
    ["s = 'it''s'", "s = 'it\\'s'"],
    ['(a) = 1', 'a = 1'],
    ['((a + 1)) > 2', 'a + 1 > 2'],
    [
      "T_AFTER(start_time, TIMESTAMP('2020-01-01T00:00:00.000Z'))",
      "t_after(start_time, timestamp('2020-01-01T00:00:00Z'))",
    ],
  ];
  for (const [a, b] of same) {
    it(`${a} ≡ ${b}`, () => expect(parseCql2(a, 'cql2-text')).toEqual(parseCql2(b, 'cql2-text')));
  }

  it('reads precedence: NOT over AND over OR; arithmetic before comparison', () => {
    expect(parseCql2('a = 1 OR b = 2 AND NOT c = 3', 'cql2-text')).toEqual({
      op: 'or',
      args: [
        { op: '=', args: [{ property: 'a' }, 1] },
        {
          op: 'and',
          args: [
            { op: '=', args: [{ property: 'b' }, 2] },
            { op: 'not', args: [{ op: '=', args: [{ property: 'c' }, 3] }] },
          ],
        },
      ],
    });
    expect(parseCql2('x * 2 + 1 >= -3', 'cql2-text')).toEqual({
      op: '>=',
      args: [{ op: '+', args: [{ op: '*', args: [{ property: 'x' }, 2] }, 1] }, -3],
    });
  });

  it('keeps quoted property names verbatim, keywords included', () => {
    expect(parseCql2('"AND" = \'x\'', 'cql2-text')).toEqual({ op: '=', args: [{ property: 'AND' }, 'x'] });
  });

  const bad: [string, number, RegExp][] = [
    ['a = ', 5, /ends where a value/],
    ["a = 'x' garbage", 9, /unexpected 'garbage'/],
    ['a = 1)', 6, /unexpected '\)'/],
    ["a = 'open", 5, /unterminated string/],
    ['a == 1', 4, /expected a value/],
    ['a', 2, /expected a comparison operator/],
    ['a = 1 AND', 10, /ends where a value/],
    ['a BETWEEN 1 OR 2', 13, /expected AND/],
    ['a IN 1', 6, /'\(' to open the IN list/],
    ['S_INTERSECTS(geometry, POLYGON((0 0, 1 0, 1 1)))', 32, /polygon ring/],
    ["T_AFTER(x, DATE('2020-02-30'))", 17, /not a date/],
    ["T_AFTER(x, TIMESTAMP('2020-01-01'))", 22, /not a timestamp/],
    ['BBOX(1,2,3) = 1', 11, /BBOX takes 4 or 6 numbers/],
    ['a = 1 ; DROP TABLE x', 7, /unexpected character ";"/],
    ['x = 1e999', 5, /out of range/],
    ['S_INTERSECTS(geometry)', 1, /takes 2 arguments/],
    ['', 1, /empty/],
  ];
  for (const [text, at, message] of bad) {
    it(`refuses ${JSON.stringify(text)} at character ${at}`, () => {
      const e = error(() => parseCql2(text, 'cql2-text'));
      expect(e.statusCode).toBe(400);
      expect(e.message).toMatch(/^'filter' is not valid cql2-text at character \d+: /);
      expect(e.message).toMatch(message);
      expect(e.extra.position).toBe(at);
    });
  }

  it('bounds the text length, the nesting and the node count', () => {
    const long = `a = '${'x'.repeat(CQL2_LIMITS.maxLength)}'`;
    expect(error(() => parseCql2(long, 'cql2-text')).message).toMatch(/longer than/);
    const deep = `${'('.repeat(200)}a = 1${')'.repeat(200)}`;
    expect(error(() => parseCql2(deep, 'cql2-text')).message).toMatch(/nests deeper/);
    const deepNot = `${'NOT '.repeat(200)}a = 1`;
    expect(error(() => parseCql2(deepNot, 'cql2-text')).message).toMatch(/nests deeper/);
    const wide = `a IN (${Array.from({ length: CQL2_LIMITS.maxNodes + 10 }, (_, i) => i).join(',')})`;
    expect(wide.length).toBeLessThan(CQL2_LIMITS.maxLength * 3);
    const e = error(() =>
      parseCql2(wide.slice(0, CQL2_LIMITS.maxLength - 1).replace(/,\d*$/, ')'), 'cql2-text'),
    );
    expect(e.message).toMatch(/more than \d+ nodes/);
  });

  it('answers a pathological nesting quickly (no exponential backtracking)', () => {
    const started = process.hrtime.bigint();
    error(() => parseCql2(`${'('.repeat(39)}a +`, 'cql2-text'));
    expect(Number(process.hrtime.bigint() - started) / 1e9).toBeLessThan(2);
  });
});

describe('cql2-json', () => {
  const bad: [unknown, RegExp][] = [
    ['{"op":"=","args":[{"property":"a"},1]', /at character \d+: not JSON/],
    [{ op: '=', args: [{ property: 'a' }] }, /at \$\.args: '=' takes 2 arguments/],
    [{ op: 'and', args: [true] }, /'and' takes two or more/],
    [{ op: 'in', args: [{ property: 'a' }, 1] }, /second argument of 'in' must be an array/],
    [{ op: '=', args: [{ property: 'a' }, null] }, /at \$\.args\[1\]: null/],
    [{ op: '=', args: [{ property: 'a', x: 1 }, 1] }, /unexpected member 'x'/],
    [{ op: 't_after', args: [{ property: 'a' }, { date: '2020-13-01' }] }, /'date' must be a date/],
    [
      {
        op: 's_intersects',
        args: [
          { property: 'g' },
          {
            type: 'Polygon',
            coordinates: [
              [
                [0, 0],
                [1, 1],
              ],
            ],
          },
        ],
      },
      /polygon ring/,
    ],
    [
      { op: 's_intersects', args: [{ property: 'g' }, { bbox: [1, 2, 3] }] },
      /'bbox' must be an array of 4 or 6/,
    ],
  ];
  for (const [input, message] of bad) {
    it(`refuses ${JSON.stringify(input).slice(0, 70)}`, () => {
      const e = error(() => parseCql2(input, 'cql2-json'));
      expect(e.statusCode).toBe(400);
      expect(e.message).toMatch(/^'filter' is not valid cql2-json at /);
      expect(e.message).toMatch(message);
    });
  }

  it('bounds the nesting', () => {
    let deep: unknown = { op: '=', args: [{ property: 'a' }, 1] };
    for (let i = 0; i < 100; i++) deep = { op: 'not', args: [deep] };
    expect(error(() => parseCql2(deep, 'cql2-json')).message).toMatch(/nests deeper/);
  });
});
