import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCql2 } from '#lib/cql2/filter.ts';
import { admin } from '../fixtures/uploads.ts';
import { call, uniqueName } from '../helpers.ts';

/**
 * CQL2's own abstract test suite (OGC 21-065r2, its annexes "Abstract Test Suite"), run over HTTP against
 * the OGC items of the standard's own test data (tests/fixtures/cql2-ats/README.md): every table row of
 * every conformance class `/api/ogc/conformance` declares, in cql2-text and in cql2-json, must return the
 * number of items the standard expects. Rows of classes we do not declare run too and are reported (the
 * table printed at the end), not asserted. docs/cql2.md ("Conformance") gives the counts.
 *
 * The standard's data name the geometry `geom` (its GeoPackage column, and its queryables `data/*.json`);
 * a collection here names it by the queryable whose `x-ogc-role` is `primary-geometry` (`geometry`), read
 * from `/queryables`, and a row's `geom` outside string literals is that name.
 *
 * One file past 300 lines: the table rows and the spatial classes' list test methods (at the end) share
 * the three layers loaded once, the declared classes and the encodings.
 */

const HERE = new URL('../fixtures/cql2-ats/', import.meta.url);
const CQL2 = 'http://www.opengis.net/spec/cql2/1.0/conf/';

interface Row {
  class: string;
  collection: string;
  filter: string;
  expected: number;
  dependsOn?: string[];
  /** The standard's count is corrected by errata.json. */
  erratum?: boolean;
}
/**
 * Rows whose count in the standard is itself wrong for its own test data (errata.json: the count the data
 * gives, and why): they are asserted with the corrected count, and the table counts them apart.
 */
const errata: (Row & { standard: number; reason: string })[] = JSON.parse(
  readFileSync(new URL('errata.json', HERE), 'utf8'),
);
const rows: Row[] = JSON.parse(readFileSync(new URL('rows.json', HERE), 'utf8')).map((r: Row) => {
  const e = errata.find((x) => x.class === r.class && x.filter === r.filter && x.standard === r.expected);
  return e ? { ...r, expected: e.expected, erratum: true } : r;
});
const LAYERS = [...new Set(rows.map((r) => r.collection))];
/** The annexes name a dependency by its title; the conformance URI uses the class's short name. */
const CLASS_OF_TITLE: Record<string, string> = {
  'Case-insensitive Comparison': 'case-insensitive-comparison',
  'Accent-insensitive Comparison': 'accent-insensitive-comparison',
  'Advanced Comparison Operators': 'advanced-comparison-operators',
  'Property-Property Comparisons': 'property-property',
  'Spatial Functions': 'spatial-functions',
  'Temporal Functions': 'temporal-functions',
  'Arithmetic Expressions': 'arithmetic',
  'Array Functions': 'array-functions',
};

const collection: Record<string, string> = {};
/** Each layer's primary-geometry queryable, as its `/queryables` names it. */
const geometryName: Record<string, string> = {};

/** The row's filter with the standard's geometry property `geom` as the collection names it. */
function withGeometryName(row: Row): string {
  const name = geometryName[row.collection] ?? 'geom';
  // Words outside single-quoted strings only ('' is a quote inside one).
  return row.filter.replace(/('(?:[^']|'')*')|\bgeom\b/g, (_m, str) => str ?? name);
}
let declared = new Set<string>();

/** Both encodings of a row: the text as the standard writes it, and its CQL2-JSON (the AST is that model). */
function encodings(row: Row): { lang: 'cql2-text' | 'cql2-json'; filter: string }[] {
  const text = withGeometryName(row);
  let json: string;
  try {
    json = JSON.stringify(parseCql2(text, 'cql2-text'));
  } catch {
    json = ''; // the text does not parse: its JSON form cannot be derived, and the row fails both ways
  }
  return [
    { lang: 'cql2-text', filter: text },
    { lang: 'cql2-json', filter: json },
  ];
}

async function count(row: Row, lang: string, filter: string): Promise<number | string> {
  const q = new URLSearchParams({ filter, 'filter-lang': lang, limit: '1000' });
  const r = await call('GET', `/api/ogc/collections/${collection[row.collection]}/items?${q}`);
  if (r.status !== 200) return `${r.status} ${r.body?.message ?? r.text.slice(0, 200)}`;
  return r.body.features.length;
}

const results: { row: Row; lang: string; got: number | string }[] = [];

beforeAll(async () => {
  for (const layer of LAYERS) {
    const name = uniqueName(layer.replace(/^ne_110m_/, 'ats_'));
    const geojson = JSON.parse(gunzipSync(readFileSync(new URL(`${layer}.geojson.gz`, HERE))).toString());
    const r = await call('POST', '/api/geodatasets/recreate', { ...admin(), body: { name, geojson } });
    expect(r.status, r.text).toBe(200);
    collection[layer] = name;
    const q = await call('GET', `/api/ogc/collections/${name}/queryables`);
    const props = Object.entries(q.body.properties as Record<string, Record<string, unknown>>);
    geometryName[layer] = props.find(([, p]) => p['x-ogc-role'] === 'primary-geometry')?.[0] ?? 'geom';
  }
  const conf = await call('GET', '/api/ogc/conformance');
  declared = new Set(
    (conf.body.conformsTo as string[]).filter((c) => c.startsWith(CQL2)).map((c) => c.slice(CQL2.length)),
  );
});

afterAll(async () => {
  for (const name of Object.values(collection))
    await call('DELETE', `/api/geodatasets/remove/${name}`, { ...admin() });
  const table = new Map<
    string,
    { declared: boolean; rows: number; pass: number; fail: number; errata: number }
  >();
  for (const { row, got } of results) {
    const t = table.get(row.class) ?? {
      declared: declared.has(row.class),
      rows: 0,
      pass: 0,
      fail: 0,
      errata: 0,
    };
    t.rows++;
    if (row.erratum) t.errata++;
    if (got === row.expected) t.pass++;
    else t.fail++;
    table.set(row.class, t);
  }
  console.log(
    'CQL2 abstract test suite (rows × 2 encodings; errata: rows asserted with errata.json counts):',
  );
  console.table(Object.fromEntries(table));
});

/** A row runs when its class is declared and so is every class it depends on; the rest are reported. */
function asserted(row: Row): boolean {
  return declared.has(row.class) && (row.dependsOn ?? []).every((d) => declared.has(CLASS_OF_TITLE[d] ?? d));
}

describe.each([...new Set(rows.map((r) => r.class))])('CQL2 conformance class %s', (cls) => {
  const mine = rows.filter((r) => r.class === cls);
  it.each(mine.map((row, i) => [i + 1, row.filter, row] as const))('row %i: %s', async (_i, _text, row) => {
    const failures: string[] = [];
    for (const { lang, filter } of encodings(row)) {
      const got = filter ? await count(row, lang, filter) : 'cannot be encoded';
      results.push({ row, lang, got });
      if (got !== row.expected) failures.push(`${lang}: ${got} (expected ${row.expected})`);
    }
    if (asserted(row)) expect(failures, `${row.collection}: ${row.filter}`).toEqual([]);
  });
});

/**
 * The test methods of the spatial classes that are lists, not table rows (annex_ats_basic-spatial-functions,
 * -plus, spatial-functions): on each layer, each filter must run (200) or, with an impossible coordinate,
 * must fail (400); some pairs of answers must be the same, some empty, some without a feature in common.
 */
const WORLD_BOX = 'BBOX(-180,-90,180,90)';
const WORLD = 'POLYGON((-180 -90,180 -90,180 90,-180 90,-180 -90))';
interface Method {
  class: string;
  name: string;
  filters: string[];
  /** Indexes of the filters that must fail. */
  fail?: number[];
  same?: [number, number];
  empty?: number[];
  /** [i, filter]: filter i's answer and this filter's have no feature in common. */
  apart?: [number, string][];
}
const METHODS: Method[] = [
  {
    class: 'basic-spatial-functions',
    name: 'spatial-predicates',
    filters: [
      `S_INTERSECTS(geom,${WORLD_BOX})`,
      'S_INTERSECTS(geom,POINT(7.02 49.92))',
      'S_INTERSECTS(geom,POINT(90 180))',
      'S_INTERSECTS(geom,BBOX(-180,-90,-90,90)) AND S_INTERSECTS(geom,BBOX(90,-90,180,90))',
    ],
    fail: [2],
  },
  {
    class: 'basic-spatial-functions-plus',
    name: 'spatial-predicates',
    filters: [
      'S_INTERSECTS(geom,MULTIPOINT(7.02 49.92, 90 180))',
      'S_INTERSECTS(geom,LINESTRING(-180 -45, 0 -45))',
      'S_INTERSECTS(geom,MULTILINESTRING((-180 -45, 0 -45), (0 45, 180 45)))',
      'S_INTERSECTS(geom,POLYGON((-180 -90, -90 -90, -90 90, -180 90, -180 -90), (-120 -50, -100 -50, -100 -40, -120 -40, -120 -50)))',
      'S_INTERSECTS(geom,GEOMETRYCOLLECTION(POINT(7.02 49.92), POLYGON((0 0, 10 0, 10 10, 0 10, 0 0))))',
    ],
    fail: [0],
  },
  {
    class: 'spatial-functions',
    name: 's_intersects',
    filters: [
      `S_INTERSECTS(geom,${WORLD_BOX})`,
      `S_INTERSECTS(geom,${WORLD})`,
      'S_INTERSECTS(geom,LINESTRING(7 50, 10 51))',
      'S_INTERSECTS(geom,POINT(7.02 49.92))',
      'S_INTERSECTS(geom,POINT(90 180))',
    ],
    fail: [4],
    same: [0, 1],
  },
  {
    class: 'spatial-functions',
    name: 's_disjoint',
    filters: [
      `S_DISJOINT(geom,${WORLD_BOX})`,
      `S_DISJOINT(geom,${WORLD})`,
      'S_DISJOINT(geom,LINESTRING(7 50,10 51))',
      'S_DISJOINT(geom,POINT(7.02 49.92))',
      'S_DISJOINT(geom,POINT(90 180))',
    ],
    fail: [4],
    empty: [0, 1],
    apart: [
      [2, 'S_INTERSECTS(geom,LINESTRING(7 50,10 51))'],
      [3, 'S_INTERSECTS(geom,POINT(7.02 49.92))'],
    ],
  },
  {
    class: 'spatial-functions',
    name: 's_equals',
    filters: [
      `S_EQUALS(geom,${WORLD})`,
      'S_EQUALS(geom,LINESTRING(7 50,10 51))',
      'S_EQUALS(geom,POINT(7.02 49.92))',
    ],
    same: [0, 1],
  },
  {
    class: 'spatial-functions',
    name: 's_touches, s_crosses, s_overlaps',
    filters: ['TOUCHES', 'CROSSES', 'OVERLAPS'].flatMap((p) => [
      `S_${p}(geom,${WORLD_BOX})`,
      `S_${p}(geom,${WORLD})`,
      `S_${p}(geom,LINESTRING(7 50,10 51))`,
    ]),
  },
  {
    class: 'spatial-functions',
    name: 's_within',
    filters: [
      `S_WITHIN(geom,${WORLD_BOX})`,
      `S_WITHIN(geom,${WORLD})`,
      'S_WITHIN(geom,LINESTRING(7 50,10 51))',
      'S_WITHIN(geom,MULTIPOINT(7 50,10 51))',
    ],
    same: [0, 1],
  },
  {
    class: 'spatial-functions',
    name: 's_contains',
    filters: [
      `S_CONTAINS(geom,${WORLD_BOX})`,
      `S_CONTAINS(geom,${WORLD})`,
      'S_CONTAINS(geom,LINESTRING(7 50,10 51))',
      'S_CONTAINS(geom,MULTIPOINT(7 50,10 51))',
    ],
    same: [0, 1],
    apart: [
      [0, `S_WITHIN(geom,${WORLD_BOX})`],
      [1, `S_WITHIN(geom,${WORLD})`],
      [2, 'S_WITHIN(geom,LINESTRING(7 50,10 51))'],
      [3, 'S_WITHIN(geom,MULTIPOINT(7 50,10 51))'],
    ],
  },
];

/** The ids a filter selects on a layer (both encodings must agree), or the failure status. */
async function ids(layer: string, text: string): Promise<number[] | number> {
  const row = { class: '', collection: layer, filter: text, expected: 0 };
  const out: (number[] | number)[] = [];
  for (const { lang, filter } of encodings(row)) {
    const q = new URLSearchParams({ filter, 'filter-lang': lang, limit: '1000' });
    const r = await call('GET', `/api/ogc/collections/${collection[layer]}/items?${q}`);
    out.push(
      r.status !== 200
        ? r.status
        : r.body.features.map((f: any) => f.id).sort((a: number, b: number) => a - b),
    );
  }
  expect(out[1], `cql2-json of ${text}`).toEqual(out[0]);
  return out[0];
}

describe.each(METHODS.map((m) => [m.class, m.name, m] as const))(
  'CQL2 test method /conf/%s/%s',
  (cls, _n, m) => {
    it.each(LAYERS)('on %s', async (layer) => {
      if (!declared.has(cls)) return;
      const got = [];
      for (const [i, f] of m.filters.entries()) {
        const r = await ids(layer, f);
        if (m.fail?.includes(i)) expect(r, f).toBe(400);
        else expect(Array.isArray(r), `${f}: ${r}`).toBe(true);
        got.push(r);
      }
      if (m.same) expect(got[m.same[1]], m.filters[m.same[1]]).toEqual(got[m.same[0]]);
      for (const i of m.empty ?? []) expect(got[i], m.filters[i]).toEqual([]);
      for (const [i, other] of m.apart ?? []) {
        const b = (await ids(layer, other)) as number[];
        expect(
          (got[i] as number[]).filter((x) => b.includes(x)),
          `${m.filters[i]} and ${other}`,
        ).toEqual([]);
      }
    });
  },
);
