import { describe, expect, it } from 'vitest';
import { checkVertices, spatialTerms, unitsPerFeature } from '#lib/ogc/cql2/cost.ts';
import { parseCql2 } from '#lib/ogc/cql2/filter.ts';

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
