import { describe, expect, it } from 'vitest';
import { HttpError } from '#lib/errors.ts';
import { parsePropertyFilters, parseReadFilters } from '#lib/geodatasets/read/filters.ts';
import { parseGeojsonOptions } from '#lib/geodatasets/read/geojson.ts';
import { getInput } from '../fixtures/getInput.ts';

/** The request as GET /get's validator leaves it (its declaration), then the parser: what the endpoint runs. */
const readFilters = (q: Record<string, unknown>) => parseReadFilters(getInput(q));
const geojsonOptions = (q: Record<string, unknown>) => parseGeojsonOptions(getInput(q));

import { parseIntersectGeometry } from '#lib/geodatasets/read/intersect.ts';
import { parseIsoInstant } from '#lib/iso8601.ts';

function error(fn: () => unknown): HttpError {
  try {
    fn();
  } catch (e) {
    return e as HttpError;
  }
  throw new Error('did not throw');
}

describe('parsePropertyFilters', () => {
  const ok: [string, unknown][] = [
    ['n+>+number+5', [{ path: ['n'], op: '>', type: 'number', values: [5] }]],
    ['n < number -3.5e1', [{ path: ['n'], op: '<', type: 'number', values: [-35] }]],
    ['a.b.c+=+string+x y+z', [{ path: ['a', 'b', 'c'], op: '=', type: 'string', values: ['x y+z'] }]],
    ['s+in+string+a$b$', [{ path: ['s'], op: 'in', type: 'string', values: ['a', 'b', ''] }]],
    ['k+in+number+1$2.5$-3', [{ path: ['k'], op: 'in', type: 'number', values: [1, 2.5, -3] }]],
    [
      'a+=+string+1, b+>+number+2',
      [
        { path: ['a'], op: '=', type: 'string', values: ['1'] },
        { path: ['b'], op: '>', type: 'number', values: [2] },
      ],
    ],
    ['Site Name+=+string+x', 'error'],
    ['', []],
  ];
  for (const [input, want] of ok) {
    it(JSON.stringify(input), () => {
      if (want === 'error') expect(() => parsePropertyFilters(input)).toThrow(HttpError);
      else expect(parsePropertyFilters(input)).toEqual(want);
    });
  }

  const bad: [string, RegExp][] = [
    ['n+>=+number+5', /unknown op/],
    ['n+~+number+5', /unknown op/],
    ['n+=+date+5', /unknown type/],
    ['n+=+number+abc', /not a number/],
    ['n+=+number+', /not a number/],
    ['n+=+number+0x10', /not a number/],
    ['n+in+number+1$$2', /not a number/],
    ['n+=', /key\+op\+type\+value/],
    ['justakey', /key\+op\+type\+value/],
    ["n';drop+=+string+1", /filters/],
    ['a..b+=+string+1', /filters/],
    [Array.from({ length: 51 }, () => 'a+=+string+1').join(','), /more than 50/],
    [`a+in+number+${Array.from({ length: 1001 }, (_, i) => i).join('$')}`, /more than 1000/],
  ];
  for (const [input, message] of bad) {
    it(`400 for ${JSON.stringify(input)}`, () => {
      const e = error(() => parsePropertyFilters(input));
      expect(e.statusCode).toBe(400);
      expect(e.message).toMatch(message);
    });
  }
});

describe('parseIsoInstant', () => {
  const cases: [string, string | undefined][] = [
    ['2024-01-31T12:00:00Z', '2024-01-31T12:00:00.000Z'],
    ['2024-01-31T12:00:00.123456Z', '2024-01-31T12:00:00.123Z'],
    ['2024-01-31T12:00:00+02:00', '2024-01-31T10:00:00.000Z'],
    ['2024-01-31T12:00-0130', '2024-01-31T13:30:00.000Z'],
    ['2024-01-31 12:00:00', '2024-01-31T12:00:00.000Z'],
    ['2024-01-31', '2024-01-31T00:00:00.000Z'],
    ['2024-01', '2024-01-01T00:00:00.000Z'],
    ['2024', '2024-01-01T00:00:00.000Z'],
    ['20240131T120000Z', '2024-01-31T12:00:00.000Z'],
    ['2024-02-29', '2024-02-29T00:00:00.000Z'],
    ['2023-02-29', undefined],
    ['2024-02-30', undefined],
    ['2024-13-01', undefined],
    ['2024-01-01T25:00:00Z', undefined],
    ['2024-01-01T12:60:00Z', undefined],
    ['yesterday', undefined],
    ['1700000000000', undefined],
    ['2024-01-01T12:00:00+25:00', undefined],
  ];
  for (const [input, want] of cases) {
    it(input, () => expect(parseIsoInstant(input)).toBe(want));
  }
});

describe('parseReadFilters', () => {
  it('parses every parameter together', () => {
    expect(
      readFilters({
        minx: '-1',
        miny: '-2.5',
        maxx: 3,
        maxy: '4',
        starttime: '2024-01-01',
        endtime: '2024-02-01T00:00:00Z',
        startProp: 'a.b',
        endProp: 'end_time',
        group_id: 'G1',
        id: '7',
        spatialFilter: '10, 20 ,300',
        filters: 'x+=+string+y',
        noDuplicates: 'TRUE',
      }),
    ).toEqual({
      bbox: { minx: -1, miny: -2.5, maxx: 3, maxy: 4 },
      startProp: 'a.b',
      endProp: 'end_time',
      time: {
        startPath: ['a', 'b'],
        endPath: ['end_time'],
        starttime: '2024-01-01',
        endtime: '2024-02-01T00:00:00Z',
        start: '2024-01-01T00:00:00.000Z',
        end: '2024-02-01T00:00:00.000Z',
        format: undefined,
      },
      groupId: 'G1',
      id: 7,
      circle: { lat: 10, lng: 20, radius: 300 },
      filters: [{ path: ['x'], op: '=', type: 'string', values: ['y'] }],
      noDuplicates: true,
    });
  });

  it('nothing given: no filter', () => {
    expect(readFilters({})).toEqual({ filters: [], noDuplicates: false });
  });

  it("treats the spec's default format as ISO 8601 and keeps a custom one for the database", () => {
    expect(
      readFilters({ starttime: '2024-03-01T10:00:00Z', format: 'YYYY-MM-DDTHH:MI:SSZ' }).time?.start,
    ).toBe('2024-03-01T10:00:00.000Z');
    const custom = readFilters({ starttime: '01/03/2024', format: 'DD/MM/YYYY' }).time;
    expect(custom?.format).toBe('DD/MM/YYYY');
    expect(custom?.start).toBeUndefined();
  });

  const bad: [Record<string, unknown>, RegExp][] = [
    [{ minx: 'a', miny: 0, maxx: 1, maxy: 1 }, /'minx' must be number/],
    [{ minx: '1e999', miny: 0, maxx: 1, maxy: 1 }, /'minx'/],
    [{ minx: '1000001', miny: 0, maxx: 1, maxy: 1 }, /'minx' must be <= 1000000/],
    [{ id: '-1' }, /'id' must be >= 0/],
    [{ id: '9'.repeat(20) }, /'id' must be <=/],
    [{ group_id: 'g'.repeat(1001) }, /'group_id' must NOT have more than 1000 characters/],
    [{ starttime: '2'.repeat(101) }, /'starttime' must NOT have more than 100 characters/],
    [{ startProp: 'p'.repeat(257) }, /'startProp' must NOT have more than 256 characters/],
    [{ filters: 'a'.repeat(50_001) }, /'filters' must NOT have more than 50000 characters/],
    [{ spatialFilter: '1'.repeat(101) }, /'spatialFilter'/],
    [{ noDuplicates: ['true', 'false'] }, /'noDuplicates'/],
    [{ minx: 0, miny: 0, maxx: 1 }, /together/],
    [{ minx: 2, miny: 0, maxx: 1, maxy: 1 }, /'minx'/],
    [{ minx: 0, miny: 2, maxx: 1, maxy: 1 }, /'miny'/],
    [{ starttime: 'soon' }, /'starttime'/],
    [{ endtime: '2024-02-30' }, /'endtime'/],
    [{ starttime: '2024-02-01', endtime: '2024-01-01' }, /after/],
    [{ startProp: "x'; --", starttime: '2024-01-01' }, /'startProp'/],
    [{ format: 'Y'.repeat(101), starttime: 'x' }, /'format'/],
    [{ id: '1.5' }, /'id'/],
    [{ id: 'one' }, /'id'/],
    [{ spatialFilter: '1,2' }, /spatialFilter/],
    [{ spatialFilter: '1,2,x' }, /spatialFilter/],
    [{ spatialFilter: '1,,3' }, /spatialFilter/],
    [{ spatialFilter: '91,0,1' }, /latitude/],
    [{ spatialFilter: '0,181,1' }, /longitude/],
    [{ spatialFilter: '0,0,0' }, /radius/],
    [{ spatialFilter: '0,0,-1' }, /radius/],
    [{ noDuplicates: 'yes' }, /'noDuplicates'/],
    [{ group_id: { a: 1 } }, /'group_id'/],
  ];
  for (const [query, message] of bad) {
    it(`400 for ${JSON.stringify(query).slice(0, 80)}`, () => {
      const e = error(() => readFilters(query));
      expect(e.statusCode).toBe(400);
      expect(e.message).toMatch(message);
    });
  }
});

describe('parseGeojsonOptions', () => {
  const cases: [Record<string, unknown>, unknown][] = [
    [{}, { offset: 0 }],
    [
      { limit: '50', offset: '10' },
      { limit: 50, offset: 10 },
    ],
    [{ limit: '0' }, { limit: 1, offset: 0 }],
    [{ limit: '-4' }, { limit: 1, offset: 0 }],
    [{ limit: '20000' }, { limit: 10000, offset: 0 }],
    [{ limited: 'true' }, { limit: 3, offset: 0 }],
    [
      { limited: 'true', limit: 2 },
      { limit: 2, offset: 0 },
    ],
    [{ _source: 'a, b.c' }, { offset: 0, source: [['a'], ['b', 'c']] }],
    [{ '_source[]': ['a', 'b.c', 'a'] }, { offset: 0, source: [['a'], ['b', 'c']] }],
    [
      { '_source[]': 'a', _source: 'b' },
      { offset: 0, source: [['b'], ['a']] },
    ],
    [{ limit: '' }, { offset: 0 }],
    [
      { stats: 'n,n,m.x' },
      {
        offset: 0,
        stats: [
          { name: 'n', path: ['n'] },
          { name: 'm.x', path: ['m', 'x'] },
        ],
      },
    ],
  ];
  for (const [query, want] of cases) {
    it(JSON.stringify(query), () => expect(geojsonOptions(query)).toEqual(want));
  }
  for (const [query, message] of [
    [{ limit: '1.5' }, /'limit'/],
    [{ offset: '-1' }, /'offset'/],
    [{ _source: "a,b'" }, /'_source'/],
    [{ stats: 'a;b' }, /'stats'/],
    [{ limited: 'sure' }, /'limited'/],
    [{ limit: '-1e16' }, /'limit' must be >=/],
    [{ offset: '1e30' }, /'offset' must be <=/],
    [{ _source: ['a', 'b'].join(',').padEnd(100 * 257 + 1, ',') }, /'_source' must NOT have more than/],
    [
      { '_source[]': Array.from({ length: 101 }, (_, k) => `f${k}`) },
      /'_source\[\]' must NOT have more than 100 items/,
    ],
    [{ 'stats[]': ['a', 'b'.repeat(257)] }, /'stats\[\]\.1' must NOT have more than 256 characters/],
    [{ stats: Array.from({ length: 101 }, (_, k) => `f${k}`).join(',') }, /'stats' names more than 100/],
  ] as [Record<string, unknown>, RegExp][]) {
    it(`400 for ${JSON.stringify(query)}`, () => expect(() => geojsonOptions(query)).toThrow(message));
  }
});

describe('parseIntersectGeometry', () => {
  it('accepts an object, its text, or a Feature', () => {
    const p = { type: 'Point', coordinates: [1, 2] };
    expect(JSON.parse(parseIntersectGeometry(p))).toEqual(p);
    expect(JSON.parse(parseIntersectGeometry(JSON.stringify(p)))).toEqual(p);
    expect(JSON.parse(parseIntersectGeometry({ type: 'Feature', geometry: p, properties: {} }))).toEqual(p);
  });
  for (const bad of [
    null,
    5,
    '[',
    '"x"',
    { type: 'Point' },
    { type: 'Point', coordinates: [1] },
    { type: 'Feature', geometry: null },
  ]) {
    it(`400 for ${JSON.stringify(bad)}`, () =>
      expect(error(() => parseIntersectGeometry(bad)).statusCode).toBe(400));
  }
});
