import { describe, expect, it } from 'vitest';
import { CQL2_COST, CQL2_LIMITS } from '#lib/cql2/limits.ts';
import { circle, costLayers, get, MANY, N, serpentine, timeArms } from '../fixtures/cql2Cost.ts';
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

const { big, small, many } = costLayers('cql2_cost', true);

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
  // Two relate predicates with 1,000 vertices each whose bounding boxes hold every feature:
  // 1,000 x N + 1,000 x about 0.96 N = about 5,900,000 units (the line's vertices written short, so the
  // filter fits in 20,000 characters).
  const twice = (op: string) => `${op}(geometry, ${circle(1000, 30)}) OR ${op}(geometry, ${serpentine})`;

  it(`S_TOUCHES of ${N} features with 2 x 1,000 vertices is a 400 naming filter and the limit`, async () => {
    const res = await get(big, twice('S_TOUCHES'));
    expect(res.status, res.text).toBe(400);
    expect(res.body.message).toMatch(/'filter' is too costly.*limit is 5,000,000/);
    // OGC items and tiles go through the same bound: see 'every operator has a cost' below (a URL of
    // 28,000 characters passes no HTTP server's limits).
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

describe('every operator has a cost, not only spatial literals', () => {
  // The report: 30 OR-ed time comparisons (about 1,200 characters) over 20,000 points were estimated at 0,
  // ran at once outside the lane, and took 6.6 s on the embedded database (each arm read and parsed the
  // time 10-20 times per feature). Now the time is read once per feature, and the arms count.
  const filter = timeArms(30);
  const items = (layer: string, f: string) =>
    call('GET', `/api/ogc/collections/${layer}/items?${new URLSearchParams({ filter: f, limit: '100' })}`);
  const tile = (layer: string, f: string) =>
    call(
      'GET',
      `/api/geodatasets/get?${new URLSearchParams({ layer, type: 'mvt', x: '0', y: '0', z: '0', filter: f })}`,
    );

  it(`over ${MANY} features in one statement (OGC items, a z0 tile) they are a 400 naming filter and the limit`, async () => {
    for (const res of [await items(many, filter), await tile(many, filter)]) {
      expect(res.status, res.text.slice(0, 300)).toBe(400);
      expect(res.body.message).toMatch(/'filter' is too costly: about [\d,]+ units.*limit is 5,000,000/);
    }
  });

  it('the GeoJSON read runs them in statements narrowed to the limit, with the right features', async () => {
    const res = await get(many, filter);
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    // Features i = 0..23 have t before 23:30 on 2024-01-01; the others are later.
    expect(res.body.features.map((f: any) => f.properties.i).sort((a: number, b: number) => a - b)).toEqual(
      Array.from({ length: 24 }, (_, i) => i),
    );
  });

  it('on a small layer they answer on every endpoint (the SQL stays far under the Data API limit)', async () => {
    // Before, these 30 arms compiled to about 67,000 characters of SQL: over the Data API's 65,536 (a 500).
    expect((await get(small, filter)).body.features).toHaveLength(5);
    const page = await items(small, filter);
    expect(page.status, page.text.slice(0, 300)).toBe(200);
    expect(page.body.features).toHaveLength(5);
    expect((await tile(small, filter)).status).toBe(200);
  });

  it('a filter whose SQL would pass 16,384 characters is a 400 naming filter and the limit, on every driver', async () => {
    const f = Array.from({ length: 600 }, (_, j) => `i < ${-j}`).join(' OR ');
    for (const res of [await get(small, f), await items(small, f), await tile(small, f)]) {
      expect(res.status, res.text.slice(0, 300)).toBe(400);
      expect(res.body.message).toMatch(/'filter' compiles to [\d,]+ characters of SQL; the limit is 16,384/);
    }
  });
});

describe('ACCENTI, arithmetic, functions and array predicates count in the same estimate', () => {
  const items = (layer: string, f: string) =>
    call('GET', `/api/ogc/collections/${layer}/items?${new URLSearchParams({ filter: f, limit: '100' })}`);
  // Arms that fold every feature's time text, compute on its number, or compare arrays: each costs
  // several hundred characters of SQL (the guards of arithmetic, the array subqueries), so a few arms,
  // under the SQL limit, are over the cost limit on 20,000 features.
  const accents = Array.from({ length: 8 }, (_, j) => `ACCENTI(t) = ACCENTI('é${j}')`).join(' OR ');
  const arithmetic = Array.from({ length: 6 }, (_, j) => `(i + ${j}) * 2 ^ 2 / 3 = -${j} - 1`).join(' OR ');
  const arrays = Array.from({ length: 10 }, (_, j) => `A_OVERLAPS(t, ('x${j}'))`).join(' OR ');

  it(`over ${MANY} features in one statement they are a 400 naming filter and the limit`, async () => {
    for (const f of [accents, arithmetic, arrays]) {
      const res = await items(many, f);
      expect(res.status, res.text.slice(0, 300)).toBe(400);
      expect(res.body.message).toMatch(/'filter' is too costly: about [\d,]+ units.*limit is 5,000,000/);
    }
  });

  it('on a small layer they answer', async () => {
    for (const f of [accents, arithmetic, arrays]) {
      const res = await items(small, f);
      expect(res.status, res.text.slice(0, 300)).toBe(200);
      expect(res.body.features).toHaveLength(0);
    }
  });
});

it('the limits are what docs/cql2.md says', () => {
  expect(CQL2_COST.maxUnits).toBe(5_000_000);
  expect(CQL2_LIMITS.maxGeometryVertices).toBe(1_000);
  expect(CQL2_LIMITS.maxSqlChars).toBe(16_384);
});
