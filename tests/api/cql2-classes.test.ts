import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCql2 } from '#lib/cql2/filter.ts';
import { admin } from '../fixtures/uploads.ts';
import { call, uniqueName } from '../helpers.ts';

/**
 * The CQL2 classes the standard's abstract test suite has no table rows for (array functions, functions),
 * their test methods (annex_ats_array-functions.adoc, annex_ats_functions.adoc) run here over HTTP in both
 * encodings, with what the requirements add (arithmetic's NULL and division by zero, refused coordinates,
 * the box across the antimeridian); and the rule that a class `/api/ogc/conformance` declares is a class
 * whose suite passes: every declared CQL2 class has rows in tests/fixtures/cql2-ats/rows.json (asserted by
 * tests/api/cql2-ats.test.ts) or is one of the classes these named tests cover.
 */

const CQL2 = 'http://www.opengis.net/spec/cql2/1.0/conf/';
/** Classes without ATS rows, and the tests that are their suite. */
const COVERED_BY_TESTS: Record<string, string> = {
  'cql2-text': 'tests/api/cql2-ats.test.ts (every row in cql2-text)',
  'cql2-json': 'tests/api/cql2-ats.test.ts (every row in cql2-json)',
  'array-functions': 'tests/api/cql2-classes.test.ts, "array functions"',
  functions: 'tests/api/cql2-classes.test.ts, "functions"',
};

const name = uniqueName('cql2_classes');
const pt = (x: number, y: number) => ({ type: 'Point', coordinates: [x, y] });
const features = [
  { geometry: pt(0, 0), properties: { i: 1, tags: ['foo', 'bar'], n: 4, s: ' Abc ', d: 0 } },
  { geometry: pt(1, 1), properties: { i: 2, tags: ['bar', 'foo', 'foo'], n: -4.5, s: 'x', d: 2 } },
  { geometry: pt(2, 2), properties: { i: 3, tags: ['foo'], n: 9, s: 'Straße', d: null } },
  { geometry: pt(3, 3), properties: { i: 4, tags: ['foo', 'bar', 'baz'], n: 0, s: null } },
  { geometry: pt(4, 4), properties: { i: 5, tags: [], n: 1e300 } },
  { geometry: pt(179.5, 0), properties: { i: 6, tags: 'foo', n: 1 } },
  { geometry: pt(-179.5, 0), properties: { i: 7, tags: [1, 2, ['foo']], n: 2 } },
].map((f) => ({ type: 'Feature', ...f }));

beforeAll(async () => {
  const r = await call('POST', '/api/geodatasets/recreate', {
    ...admin(),
    body: { name, geojson: { type: 'FeatureCollection', features } },
  });
  expect(r.status, r.text).toBe(200);
});

afterAll(async () => {
  await call('DELETE', `/api/geodatasets/remove/${name}`, { ...admin() });
});

/** The `i` of the features a filter selects, in cql2-text and in its cql2-json form (both must agree). */
async function pick(text: string): Promise<number[] | string> {
  const out: (number[] | string)[] = [];
  for (const [lang, filter] of [
    ['cql2-text', text],
    ['cql2-json', JSON.stringify(parseCql2(text, 'cql2-text'))],
  ]) {
    const q = new URLSearchParams({ filter, 'filter-lang': lang, limit: '100' });
    const r = await call('GET', `/api/ogc/collections/${name}/items?${q}`);
    if (r.status !== 200) out.push(`${r.status} ${r.body?.message}`);
    else out.push(r.body.features.map((f: any) => f.properties.i).sort((a: number, b: number) => a - b));
  }
  expect(out[1], `cql2-json of ${text}`).toEqual(out[0]);
  return out[0];
}

/**
 * The test method writes the arrays `("foo","bar")`: in cql2-text a double-quoted word is a property name
 * (the BNF's `propertyName`), so these use the strings 'foo' and 'bar' its cql2-json form means.
 */
describe('array functions (annex_ats_array-functions.adoc, /conf/array-functions/array-predicates)', () => {
  it.each([
    ["A_CONTAINS(tags,('foo','bar'))", [1, 2, 4]],
    ["A_CONTAINEDBY(tags,('foo','bar'))", [1, 2, 3, 5]],
    ["A_EQUALS(tags,('foo','bar'))", [1, 2]],
    ["A_OVERLAPS(tags,('foo','bar'))", [1, 2, 3, 4]],
    ["a_equals(tags,('bar','foo','bar'))", [1, 2]],
    ['A_EQUALS(tags,())', [5]],
    ["A_CONTAINS(tags,(('foo')))", [7]],
    ['A_OVERLAPS(tags,(2, 3))', [7]],
    ["NOT A_OVERLAPS(tags,('foo','bar'))", [5, 7]],
  ])('%s', async (filter, expected) => {
    expect(await pick(filter)).toEqual(expected);
  });

  it('in the logical combinations of the class test method', async () => {
    const [p1, p2, p3, p4] = [
      "A_CONTAINS(tags,('foo','bar'))",
      "A_CONTAINEDBY(tags,('foo','bar'))",
      "A_EQUALS(tags,('foo','bar'))",
      "A_OVERLAPS(tags,('foo','bar'))",
    ];
    const got = await pick(`((NOT ${p1} AND ${p2}) OR (${p3} and NOT ${p4}) or not (${p1} AND ${p4}))`);
    expect(got).toEqual([3, 5, 7]);
  });
});

describe('functions (annex_ats_functions.adoc: each listed function in several operators)', () => {
  it('GET /api/ogc/functions lists them in the standard shape', async () => {
    const r = await call('GET', '/api/ogc/functions');
    expect(r.status).toBe(200);
    const names = r.body.functions.map((f: any) => f.name);
    expect(names).toEqual(['abs', 'ceil', 'floor', 'round', 'lower', 'upper', 'length', 'trim']);
    for (const f of r.body.functions) expect(f.returns.length).toBeGreaterThan(0);
  });

  it.each([
    ['abs(n) = 4.5', [2]],
    ['ABS(n) > 3 and abs(n) < 5', [1, 2]],
    ['ceil(n) = -4', [2]],
    ['floor(n) between -5 and -5', [2]],
    ['round(n) in (-5, 9)', [2, 3]],
    ["lower(s) = 'straße'", [3]],
    ["upper(s) like 'STR%'", [3]],
    ['length(s) = 5', [1]],
    ["trim(s) = 'Abc'", [1]],
    ['length(s) > 100 or length(s) is null', [4, 5, 6, 7]],
  ])('%s', async (filter, expected) => {
    expect(await pick(filter)).toEqual(expected);
  });

  it('an unknown function or a wrong argument count is a 400', async () => {
    expect(await pick('sqrt(n) > 1')).toMatch(/^400 .*sqrt.*\/api\/ogc\/functions/);
    expect(await pick('abs(n, 2) > 1')).toMatch(/^400 .*abs with 2 arguments/);
    expect(await pick('abs(n)')).toMatch(/^400 .*abs, which returns a number, where a condition is expected/);
    expect(await pick('Foo(n)')).toMatch(/^400 .*function 'Foo'.*\/api\/ogc\/functions/);
  });
});

describe('arithmetic (/req/arithmetic/arithmetic: a NULL operand, no finite value)', () => {
  it.each([
    ['n * 2 = 8', [1]],
    ['n + 1 > 5 and n - 1 < 9', [3]],
    ['n % 4 = 1', [3, 6]],
    ['n div 2 = -2', [2]],
    ['2 ^ n = 16', [1]],
    ['(d + 1) = 1', [1]],
    ['n / d = -2.25', [2]],
    ['n / d is null', [1, 3, 4, 5, 6, 7]],
    ['n * n > 0', [1, 2, 3, 6, 7]],
    ['n ^ 2 > 0', [1, 2, 3, 6, 7]],
    ['(-1) ^ 0.5 > 0 or (0 ^ -1) > 0 or n % 0 = 0 or n div 0 = 0', []],
  ])('%s', async (filter, expected) => {
    expect(await pick(filter)).toEqual(expected);
  });
});

describe('spatial literals', () => {
  it.each([
    'S_INTERSECTS(geometry,POINT(90 180))',
    'S_DISJOINT(geometry,POINT(90 180))',
    'S_INTERSECTS(geometry,MULTIPOINT(7.02 49.92, 90 180))',
    'S_INTERSECTS(geometry,BBOX(0,-100,10,10))',
  ])('%s (a coordinate off the Earth) is a 400', async (filter) => {
    expect(await pick(filter)).toMatch(/^400 .*outside longitude \[-180, 180\] and latitude \[-90, 90\]/);
  });

  it('a BBOX whose west is east of its east is the box across the antimeridian', async () => {
    expect(await pick('S_INTERSECTS(geometry,BBOX(170,-10,-170,10))')).toEqual([6, 7]);
    expect(await pick('S_INTERSECTS(geometry,BBOX(179.9,-10,-179.9,10))')).toEqual([]);
  });
});

describe('a declared CQL2 class is a class whose suite passes', () => {
  it('every CQL2 class /api/ogc/conformance declares has ATS rows or named tests of its own', async () => {
    const rows: { class: string }[] = JSON.parse(
      readFileSync(new URL('../fixtures/cql2-ats/rows.json', import.meta.url), 'utf8'),
    );
    const withRows = new Set(rows.map((r) => r.class));
    const conf = await call('GET', '/api/ogc/conformance');
    const declared = (conf.body.conformsTo as string[])
      .filter((c) => c.startsWith(CQL2))
      .map((c) => c.slice(CQL2.length));
    const uncovered = declared.filter((c) => !withRows.has(c) && !(c in COVERED_BY_TESTS));
    expect(uncovered).toEqual([]);
    // Every class of CQL2 1.0 is declared.
    expect(new Set(declared)).toEqual(new Set([...withRows, ...Object.keys(COVERED_BY_TESTS)]));
  });
});
