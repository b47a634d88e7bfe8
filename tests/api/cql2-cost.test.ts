import { describe, expect, it } from 'vitest';
import { CQL2_COST, CQL2_LIMITS } from '#lib/ogc/cql2/limits.ts';
import { circle, costLayers, get, N } from '../fixtures/cql2Cost.ts';
import { call } from '../helpers.ts';

/**
 * The cost of a CQL2 filter is bounded (docs/cql2.md, "Cost"). The attack: S_TOUCHES with a polygon of
 * about 1,600 vertices (it fits in the 20,000 characters) costs about 1 ms per feature, so one anonymous
 * request held a connection for the whole statement timeout, ten made the healthcheck answer 503, and on
 * the embedded database (which cannot cancel a statement) three ran one after another for 22.7 s. Now:
 * vertex limits, a cost estimate refused with a 400 naming `filter` and the limit, the literal built once
 * per statement, and costly reads a few at a time per process, so ten at once leave the healthcheck and a
 * small read answering.
 */

const { big } = costLayers('cql2_cost');

describe('vertex limits', () => {
  it('a geometry of more than 1,000 vertices is a 400 naming filter and the limit', async () => {
    const f = `S_TOUCHES(geometry, ${circle(1600, 30)})`;
    expect(f.length).toBeLessThan(CQL2_LIMITS.maxLength);
    const res = await get(big, f);
    expect(res.status, res.text).toBe(400);
    expect(res.body.message).toMatch(/'filter'.*1600 vertices.*limit is 1000/);
  });

  it('more than 2,000 vertices in all is a 400', async () => {
    const line = (y: number) => `LINESTRING(${Array.from({ length: 700 }, (_, x) => `${x} ${y}`).join(',')})`;
    const f = [0, 1, 2].map((y) => `S_INTERSECTS(geometry, ${line(y)})`).join(' OR ');
    expect(f.length).toBeLessThan(CQL2_LIMITS.maxLength);
    const res = await get(big, f);
    expect(res.status, res.text).toBe(400);
    expect(res.body.message).toMatch(/'filter' has 2100 vertices.*limit is 2000/);
  });
});

describe('the cost estimate', () => {
  // Two relate predicates with 1,000 vertices each, over every feature: 2 x 1,000 x N = 6,000,000 units.
  const twice = (op: string) =>
    `${op}(geometry, ${circle(1000, 30)}) OR ${op}(geometry, ${circle(1000, 29)})`;

  it(`S_TOUCHES of ${N} features with 2 x 1,000 vertices is a 400 naming filter and the limit`, async () => {
    const res = await get(big, twice('S_TOUCHES'));
    expect(res.status, res.text).toBe(400);
    expect(res.body.message).toMatch(/'filter' is too costly.*limit is 5,000,000/);
    // the same on the OGC items and a vector tile
    const items = await call(
      'GET',
      `/api/ogc/collections/${big}/items?${new URLSearchParams({ filter: twice('S_CROSSES') })}`,
    );
    expect(items.status, items.text).toBe(400);
    expect(items.body.message).toMatch(/'filter' is too costly/);
    const tile = await call(
      'GET',
      `/api/geodatasets/get?${new URLSearchParams({ layer: big, type: 'mvt', x: '0', y: '0', z: '0', filter: twice('S_OVERLAPS') })}`,
    );
    expect(tile.status, tile.text).toBe(400);
  });

  it('the same polygon over a small area passes: only the features its bounding box meets count', async () => {
    const res = await get(big, `S_TOUCHES(geometry, ${circle(1000, 1)})`);
    expect(res.status, res.text).toBe(200);
  });

  it('S_INTERSECTS with the large polygon passes (a prepared literal costs little per feature)', async () => {
    const res = await get(big, `S_INTERSECTS(geometry, ${circle(1000, 30)})`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.features).toHaveLength(N);
  });
});

it('the limits are what docs/cql2.md says', () => {
  expect(CQL2_COST.maxUnits).toBe(5_000_000);
  expect(CQL2_LIMITS.maxGeometryVertices).toBe(1_000);
});
