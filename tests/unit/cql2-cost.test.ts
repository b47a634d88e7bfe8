import { describe, expect, it } from 'vitest';
import { compileCql2WithCost } from '#lib/cql2/compile.ts';
import { COST_WEIGHTS as W } from '#lib/cql2/costWeights.ts';
import { parseCql2 } from '#lib/cql2/filter.ts';
import { CQL2_LIMITS } from '#lib/cql2/limits.ts';
import { checkVertices, spatialTerms, unitsPerFeature } from '#lib/cql2/spatial.ts';
import { sqlTextOf } from '#lib/db/sqlText.ts';
import type { Geodataset } from '#lib/geodatasets/catalog.ts';
import { COLUMN_QUERYABLES, type Queryables } from '#lib/geodatasets/read/cql2/queryables.ts';
import { cql2Target } from '#lib/geodatasets/read/cql2/readFilter.ts';
import { parseReadFilters, type ReadFilters } from '#lib/geodatasets/read/filters.ts';
import { featuresQuery, parseGeojsonOptions } from '#lib/geodatasets/read/geojson.ts';

/** The parts of the cost estimate that need no database (docs/cql2.md, "Cost"). */

const line = (n: number, y = 0) =>
  `LINESTRING(${Array.from({ length: n }, (_, x) => `${x} ${y}`).join(',')})`;

describe('spatialTerms', () => {
  it('finds each spatial predicate with a literal, its vertices and bounding box', () => {
    const ast = parseCql2(
      `S_TOUCHES(geometry, ${line(4, 2)}) AND (n > 1 OR NOT S_INTERSECTS(geometry, BBOX(0, 1, 2, 3)))`,
      'cql2-text',
    );
    expect(spatialTerms(ast)).toEqual([
      { op: 's_touches', vertices: 4, bbox: [0, 2, 3, 2] },
      { op: 's_intersects', vertices: 5, bbox: [0, 1, 2, 3] },
    ]);
  });

  it('ignores a predicate between two properties', () => {
    expect(spatialTerms(parseCql2('S_EQUALS(geometry, geometry)', 'cql2-text'))).toEqual([]);
  });
});

describe('unitsPerFeature', () => {
  it('counts every literal vertex for the relate predicates, a sixteenth for the prepared ones', () => {
    for (const op of ['s_touches', 's_crosses', 's_overlaps', 's_disjoint'])
      expect(unitsPerFeature(op, 1000)).toBe(1000);
    for (const op of ['s_intersects', 's_within', 's_contains', 's_equals'])
      expect(unitsPerFeature(op, 1000)).toBe(62);
    expect(unitsPerFeature('s_intersects', 5)).toBe(0);
  });
});

describe('checkVertices', () => {
  it('passes 1,000 vertices in one geometry and 2,000 in all', () => {
    expect(() => checkVertices(parseCql2(`S_CROSSES(geometry, ${line(1000)})`, 'cql2-text'))).not.toThrow();
    const two = `S_CROSSES(geometry, ${line(1000)}) OR S_CROSSES(geometry, ${line(1000, 1)})`;
    expect(() => checkVertices(parseCql2(two, 'cql2-text'))).not.toThrow();
  });

  it('refuses 1,001 in one geometry, and 2,001 in all, naming filter and the limit', () => {
    expect(() => checkVertices(parseCql2(`S_CROSSES(geometry, ${line(1001)})`, 'cql2-text'))).toThrow(
      /'filter' has a geometry of 1001 vertices; the limit is 1000/,
    );
    const three = [0, 1, 2].map((y) => `S_CROSSES(geometry, ${line(667, y)})`).join(' OR ');
    expect(() => checkVertices(parseCql2(three, 'cql2-text'))).toThrow(
      /'filter' has 2001 vertices.*limit is 2000/,
    );
  });
});

describe('what a filter costs per feature, and the SQL it compiles to (no database)', () => {
  const ds = { id: 1, name: 'd', table: 'gd_1', propertiesType: 'jsonb', numFeatures: 0 } as Geodataset;
  const q: Queryables = new Map([
    ...COLUMN_QUERYABLES,
    ['t', { path: ['t'], type: 'string' }],
    ['n', { path: ['n'], type: 'number' }],
    ['s', { path: ['s'], type: 'string' }],
  ]);
  const compiled = (text: string) => {
    let units = 0;
    const sql = sqlTextOf((s) => {
      const c = compileCql2WithCost(parseCql2(text, 'cql2-text'), cql2Target(s, ds, q, 't'), 'CRS84');
      units = c.unitsPerFeature;
      return c.sql;
    });
    return { sql, units };
  };
  const arms = (k: number, arm: (i: number) => string) =>
    Array.from({ length: k }, (_, i) => arm(i)).join(' OR ');
  const timeArm = (i: number) => `t < TIMESTAMP('2024-01-01T00:00:${String(i % 60).padStart(2, '0')}Z')`;
  /** Reads of a property path (`properties #> :pN::text[]`) in the SQL text. */
  const reads = (sql: string) => sql.match(/"properties" #> :p\d+::text\[\]/g)?.length ?? 0;

  it('30 OR-ed time comparisons read the property once per feature, and each arm counts', () => {
    const one = compiled(timeArm(0));
    const thirty = compiled(arms(30, timeArm));
    expect(reads(thirty.sql)).toBe(1);
    expect(one.units).toBe(W.scope + W.read + W.convert.instant + W.compare);
    expect(thirty.units).toBe(W.scope + W.read + W.convert.instant + 30 * W.compare + 30 * W.logic);
    // Before, each arm repeated the property's read and time parsing: about 2,200 characters of SQL per arm.
    expect(thirty.sql.length).toBeLessThan(4000);
  });

  it('every operator costs something: none is free', () => {
    for (const text of [
      "s = 'x'",
      "s LIKE 'x%'",
      "CASEI(s) = 'x'",
      'n IN (1, 2, 3)',
      'n BETWEEN 1 AND 2',
      's IS NULL',
      'n = s',
      "T_INTERSECTS(INTERVAL(t, t), INTERVAL('2024-01-01', '2024-02-01'))",
      "T_BEFORE(start_time, TIMESTAMP('2024-01-01T00:00:00Z'))",
      'id > 3',
      'NOT n > 3',
    ])
      expect(compiled(text).units, text).toBeGreaterThan(0);
  });

  it('ACCENTI, arithmetic, the custom functions and the array predicates each count their weight', () => {
    const base = compiled("s = 'x'").units;
    expect(compiled("ACCENTI(s) = 'x'").units).toBe(base + W.accenti);
    expect(compiled("ACCENTI(s) = ACCENTI('x')").units).toBe(base + 2 * W.accenti);
    const n = compiled('n = 1').units;
    expect(compiled('n + 1 = 1').units).toBe(n + W.arithmetic);
    expect(compiled('(n + 1) * 2 ^ n = 1').units).toBe(n + 3 * W.arithmetic);
    expect(compiled('abs(n) = 1').units).toBe(n + W.function);
    expect(compiled("A_CONTAINS(t, ('a'))").units).toBe(W.read + W.array);
  });

  it('a nested arithmetic operand is computed once, in a subquery, not once per guard', () => {
    const c = compiled('((n + 1) * (n - 1)) / 2 = 1');
    expect(c.sql.match(/cql2_a/g)?.length).toBeGreaterThan(0);
    // Each operation's guards name its operands 3-6 times: inline, three levels would repeat the
    // innermost ones about 100 times.
    expect(c.sql.length).toBeLessThan(4000);
  });

  it('a number and a text of the same property are each converted once', () => {
    const c = compiled("n > 1 OR n < 0 OR n = 5 OR s = 'a' OR s = 'b'");
    expect(reads(c.sql)).toBe(2);
    expect(c.units).toBe(
      W.scope + 2 * W.read + W.convert.number + W.convert.text + 5 * W.compare + 5 * W.logic,
    );
  });

  it('a lone text comparison stays inline; a spatial conjunct stays a plain condition (its index)', () => {
    expect(compiled("s = 'x'").sql).not.toMatch(/cql2_v/);
    const c = compiled('S_INTERSECTS(geometry, BBOX(0, 0, 1, 1)) AND n > 3');
    expect(c.sql).toMatch(/^\(ST_Intersects\("t"\."geom"/);
    expect(c.sql).toMatch(/and \(select .*cql2_v/s);
  });
});

describe("a filter at the SQL limit fits the Data API's statement", () => {
  it('with noDuplicates (the filter twice), 100 _source paths and 5 stats, the GeoJSON statement stays under 65,536 characters', () => {
    const ds = {
      id: 1,
      name: 'd',
      table: 'gd_1_1',
      propertiesType: 'jsonb',
      numFeatures: 0,
      groupIdProp: 'g',
    } as Geodataset;
    const q: Queryables = new Map([...COLUMN_QUERYABLES, ['n', { path: ['n'], type: 'number' }]]);
    // As many OR-ed comparisons as fit the limit.
    let k = 1;
    const text = (n: number) => Array.from({ length: n }, (_, j) => `n < ${-j}`).join(' OR ');
    const size = (n: number) =>
      sqlTextOf(
        (s) => compileCql2WithCost(parseCql2(text(n), 'cql2-text'), cql2Target(s, ds, q, 't'), 'CRS84').sql,
      ).length;
    while (size(k * 2) <= CQL2_LIMITS.maxSqlChars) k *= 2;
    for (let step = k / 2; step >= 1; step /= 2) if (size(k + step) <= CQL2_LIMITS.maxSqlChars) k += step;
    const ast = parseCql2(text(k), 'cql2-text');
    const paths = (n: number) => Array.from({ length: n }, (_, j) => `p${j}.q${j}`).join(',');
    // `stats` writes the numeric rule once for all its paths (about 280 characters a path): 5 here
    // (docs/cql2.md, "Limits"; its 100-field cap is checked in tests/unit/geodatasets-stats-sql.test.ts).
    const opts = parseGeojsonOptions({ _source: paths(100), stats: paths(5), limit: 10, offset: 5 });
    const statement = sqlTextOf((s) => {
      const f: ReadFilters = {
        ...parseReadFilters({ noDuplicates: true, minx: 0, miny: 0, maxx: 1, maxy: 1, group_id: 'x' }),
        cql2: (alias) => compileCql2WithCost(ast, cql2Target(s, ds, q, alias), 'CRS84').sql,
      };
      return featuresQuery(s, ds, f, opts, 1000, 1);
    });
    expect(statement.length).toBeGreaterThan(2 * CQL2_LIMITS.maxSqlChars - 2000);
    expect(statement.length).toBeLessThan(65_536);
  });
});
