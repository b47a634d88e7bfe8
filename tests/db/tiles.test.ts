import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '#lib/db/index.ts';
import { type Geodataset, requireDataset, sqlTable } from '#lib/geodatasets/catalog.ts';
import { removeGeodataset } from '#lib/geodatasets/manage.ts';
import { createRankLevels, overviewName } from '#lib/geodatasets/rank.ts';
import { parseReadFilters, sqlWhere } from '#lib/geodatasets/read/filters.ts';
import type { TileAddress, TileSettings } from '#lib/geodatasets/read/tileParams.ts';
import { readTile, type Tile } from '#lib/geodatasets/tiles/readTile.ts';
import { appendGeodataset, recreateGeodataset } from '#lib/geodatasets/write/write.ts';
import { createFixtureDataset, dropFixtureDataset, type FixtureFeature } from '../fixtures/geodatasets.ts';
import { getInput } from '../fixtures/getInput.ts';
import { decodeTile, mercator, pixelCentre, rng, tilePixel } from '../fixtures/tiles.ts';
import { isEmbedded, uniqueName } from '../helpers.ts';

/** The tile fixtures name their internal ids (the tiles carry them as feature ids). */
type TileFeature = FixtureFeature & { id: number };

const db = getDb();
const settings: TileSettings = { maxAge: 300, maxFeatures: 20000, maxBytes: 1_000_000 };
let asMvt = false;
const encoders = (): Tile['encoder'][] => (asMvt ? ['st_asmvt', 'vt-pbf'] : ['vt-pbf']);

/** The tile containing lon/lat at zoom z. */
function tileOf(lon: number, lat: number, z: number): TileAddress {
  const [fx, fy] = mercator(lon, lat);
  return { z, x: Math.floor(fx * 2 ** z), y: Math.floor(fy * 2 ** z) };
}

async function tile(ds: Geodataset, a: TileAddress, query: Record<string, string> = {}, opts = {}) {
  const where = sqlWhere(db.sql, ds, parseReadFilters(getInput(query)), 't');
  return readTile(db, ds, a, where, { settings, ...opts });
}

// ------------------------------------------------------------------------------------ mixed fixture
const POINTS = 400;
const mixed: TileFeature[] = [];
{
  const r = rng(42);
  for (let i = 1; i <= POINTS; i++) {
    mixed.push({
      id: i,
      geometry: { type: 'Point', coordinates: [10 + r() * 10, 40 + r() * 10] },
      properties: {
        n: i,
        name: `p${i}`,
        cat: i % 3 === 0 ? 'b' : 'a',
        nested: { k: i },
        arr: [i, 'x'],
        nul: null,
        flag: i % 2 === 0,
        f: i / 8,
      },
    });
  }
  for (let i = 0; i < 20; i++) {
    const x = 10 + r() * 9;
    const y = 40 + r() * 9;
    mixed.push({
      id: 1000 + i,
      geometry: {
        type: 'LineString',
        coordinates: [
          [x, y],
          [x + 0.5, y + 0.3],
          [x + 1, y - 0.2],
        ],
      },
      properties: { kind: 'line', len: i },
    });
    mixed.push({
      id: 2000 + i,
      geometry: {
        type: 'Polygon',
        coordinates: [
          [
            [x, y],
            [x + 0.8, y],
            [x + 0.8, y + 0.6],
            [x, y + 0.6],
            [x, y],
          ],
          [
            [x + 0.2, y + 0.2],
            [x + 0.2, y + 0.4],
            [x + 0.4, y + 0.4],
            [x + 0.4, y + 0.2],
            [x + 0.2, y + 0.2],
          ],
        ],
      },
      properties: { kind: 'polygon', area: i, tags: ['a', 'b'] },
    });
  }
  mixed.push({
    id: 3000,
    geometry: {
      type: 'MultiPolygon',
      coordinates: [
        [
          [
            [12, 42],
            [13, 42],
            [13, 43],
            [12, 42],
          ],
        ],
        [
          [
            [15, 45],
            [16, 45],
            [16, 46],
            [15, 45],
          ],
        ],
      ],
    },
    properties: { kind: 'multi' },
  });
}

let ds: Geodataset;
let dsJson: Geodataset;

beforeAll(async () => {
  asMvt = (await db.capabilities()).asMvt;
  ds = await createFixtureDataset(db, uniqueName('tiles_mixed'), mixed);
  dsJson = await createFixtureDataset(db, uniqueName('tiles_json'), mixed.slice(0, 50), {
    propertiesType: 'json',
  });
});

afterAll(async () => {
  await dropFixtureDataset(db, ds);
  await dropFixtureDataset(db, dsJson);
});

describe('vector tiles: content', () => {
  it('the embedded database has no ST_AsMVT and the server has it', () => {
    expect(asMvt).toBe(!isEmbedded());
  });

  for (const encoder of ['st_asmvt', 'vt-pbf'] as const) {
    it(`${encoder}: layer named after the dataset, ids, attributes (nested as JSON text), types`, async (ctx) => {
      if (encoder === 'st_asmvt' && !asMvt) ctx.skip();
      const t = await tile(ds, { z: 4, x: 8, y: 5 }, {}, { encoder });
      const layers = decodeTile(t.tile);
      expect(Object.keys(layers)).toEqual([ds.name]);
      const layer = layers[ds.name];
      expect(layer.extent).toBe(4096);
      expect(layer.version).toBe(2);
      // z4 x8 y5 spans lon 0..22.5, lat ~40.98..55.78: compute which fixture features fall inside.
      const inside = (lon: number, lat: number) => {
        const [px, py] = tilePixel(lon, lat, 4, 8, 5);
        return px >= -64 && px <= 4160 && py >= -64 && py <= 4160;
      };
      const expectedPoints = mixed
        .filter((f) => f.geometry.type === 'Point')
        .filter((f) => inside(...(f.geometry.coordinates as [number, number])))
        .map((f) => f.id);
      expect(expectedPoints.length).toBeGreaterThan(200);
      const byId = new Map(layer.features.map((f) => [f.id, f]));
      for (const id of expectedPoints) expect(byId.has(id)).toBe(true);
      expect(layer.features.filter((f) => f.type === 1).map((f) => f.id)).toEqual(expectedPoints);

      const p7 = mixed[6];
      expect(byId.has(7) || !expectedPoints.includes(7)).toBe(true);
      const f7 = byId.get(expectedPoints[0])!;
      const src = mixed[f7.id! - 1];
      expect(f7.type).toBe(1);
      expect(f7.properties).toEqual({
        n: src.id,
        name: `p${src.id}`,
        cat: src.id % 3 === 0 ? 'b' : 'a',
        nested: `{"k": ${src.id}}`,
        arr: `[${src.id}, "x"]`,
        flag: src.id % 2 === 0,
        f: src.id / 8,
      });
      expect(p7.id).toBe(7);
      const [px, py] = tilePixel(...(src.geometry.coordinates as [number, number]), 4, 8, 5);
      expect(Math.abs(f7.geometry[0][0].x - px)).toBeLessThanOrEqual(1);
      expect(Math.abs(f7.geometry[0][0].y - py)).toBeLessThanOrEqual(1);

      // Lines and polygons (with holes) keep their types; the multipolygon is one feature.
      const lines = layer.features.filter((f) => f.type === 2);
      const polys = layer.features.filter((f) => f.type === 3);
      // A line reaches the buffered tile (all lie within its longitudes) when a vertex is above its
      // bottom edge (segments are straight in pixels: one endpoint is then inside the half-plane).
      const reaches = (f: TileFeature) =>
        (f.geometry.coordinates as [number, number][]).some(
          ([lon, lat]) => tilePixel(lon, lat, 4, 8, 5)[1] < 4160,
        );
      expect(lines.map((f) => f.id)).toEqual(
        mixed.filter((f) => f.geometry.type === 'LineString' && reaches(f)).map((f) => f.id),
      );
      expect(polys.map((f) => f.id)).toContain(3000);
      const poly = polys.find((f) => f.id === 2000 + 0) ?? polys[0];
      expect(poly.properties.kind === 'polygon' || poly.properties.kind === 'multi').toBe(true);
      const ring = byId.get(2001)?.geometry;
      if (ring) {
        expect(ring.length).toBe(2); // exterior + hole
        expect(byId.get(2001)!.properties).toEqual({ kind: 'polygon', area: 1, tags: '["a", "b"]' });
      }
      expect(byId.get(3000)!.geometry.length).toBe(2);
    });
  }

  it('point membership and pixel positions match Web-Mercator math on many tiles', async () => {
    const addresses: TileAddress[] = [];
    for (const z of [5, 6, 7, 8]) {
      const a = tileOf(15, 45, z);
      addresses.push(a, { z, x: a.x + 1, y: a.y }, { z, x: a.x, y: a.y + 1 }, { z, x: a.x - 1, y: a.y - 1 });
    }
    let checked = 0;
    for (const a of addresses) {
      for (const encoder of encoders()) {
        const t = await tile(ds, a, {}, { encoder });
        const got = new Map(
          (t.n ? decodeTile(t.tile)[ds.name].features : []).filter((f) => f.type === 1).map((f) => [f.id, f]),
        );
        for (const f of mixed.filter((m) => m.geometry.type === 'Point')) {
          const [px, py] = tilePixel(...(f.geometry.coordinates as [number, number]), a.z, a.x, a.y);
          const margin = Math.min(px + 64, 4160 - px, py + 64, 4160 - py);
          if (Math.abs(margin) < 1) continue; // on the buffer's edge: either answer is right
          expect(got.has(f.id), `${encoder} ${a.z}/${a.x}/${a.y} id ${f.id}`).toBe(margin > 0);
          if (margin > 0) {
            const g = got.get(f.id)!.geometry[0][0];
            expect(Math.abs(g.x - px)).toBeLessThanOrEqual(1);
            expect(Math.abs(g.y - py)).toBeLessThanOrEqual(1);
            checked++;
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(300);
  });

  it('ST_AsMVT and the JS encoder give the same features, ids, attributes and types', async (ctx) => {
    if (!asMvt) ctx.skip();
    let compared = 0;
    for (const z of [0, 3, 5, 6, 7]) {
      const c = tileOf(15, 45, z);
      for (const a of [c, { z, x: c.x + 1, y: c.y }, { z, x: c.x, y: c.y - 1 }]) {
        if (a.x >= 2 ** z || a.y < 0) continue;
        const [s, j] = await Promise.all([
          tile(ds, a, {}, { encoder: 'st_asmvt' }),
          tile(ds, a, {}, { encoder: 'vt-pbf' }),
        ]);
        expect(s.n).toBe(j.n);
        if (s.n === 0) continue;
        const fs = decodeTile(s.tile)[ds.name].features;
        const fj = decodeTile(j.tile)[ds.name].features;
        expect(fj.map((f) => [f.id, f.type, f.properties])).toEqual(
          fs.map((f) => [f.id, f.type, f.properties]),
        );
        compared += fs.length;
      }
    }
    expect(compared).toBeGreaterThan(400);
  });

  it('a json (not jsonb) properties dataset encodes the same attributes', async () => {
    const t = await tile(dsJson, { z: 4, x: 8, y: 5 });
    const f = decodeTile(t.tile)[dsJson.name].features.find((x) => x.id === 3);
    if (f) expect(f.properties.nested).toBe('{"k": 3}');
    expect(t.n).toBeGreaterThan(20);
  });

  it('tiles at the world edges: antimeridian columns and top/bottom rows keep their features', async () => {
    const edge = await createFixtureDataset(db, uniqueName('tiles_edge'), [
      { id: 1, geometry: { type: 'Point', coordinates: [179.9, 10] }, properties: {} },
      { id: 2, geometry: { type: 'Point', coordinates: [-179.9, 10] }, properties: {} },
      { id: 3, geometry: { type: 'Point', coordinates: [12, 60] }, properties: {} },
      { id: 4, geometry: { type: 'Point', coordinates: [100, -84.9] }, properties: {} },
      {
        id: 5,
        geometry: {
          type: 'LineString',
          coordinates: [
            [170, 80],
            [179.5, 84],
          ],
        },
        properties: {},
      },
    ]);
    try {
      const cases: [TileAddress, number[]][] = [
        [{ z: 0, x: 0, y: 0 }, [1, 2, 3, 4, 5]],
        [{ z: 1, x: 1, y: 0 }, [1, 3, 5]],
        [{ z: 1, x: 0, y: 0 }, [2]],
        [{ z: 1, x: 1, y: 1 }, [4]],
        [{ z: 3, x: 7, y: 0 }, [5]],
        [{ z: 3, x: 7, y: 3 }, [1]],
        [{ z: 3, x: 0, y: 3 }, [2]],
      ];
      for (const encoder of encoders()) {
        for (const [a, ids] of cases) {
          const t = await tile(edge, a, {}, { encoder });
          const got = t.n ? decodeTile(t.tile)[edge.name].features.map((f) => f.id) : [];
          expect(got, `${encoder} ${a.z}/${a.x}/${a.y}`).toEqual(ids);
        }
      }
    } finally {
      await dropFixtureDataset(db, edge);
    }
  });

  it('_source keeps only the given paths, each an attribute named by its dotted path', async () => {
    for (const encoder of encoders()) {
      const a = { z: 4, x: 8, y: 5 };
      const where = sqlWhere(db.sql, ds, parseReadFilters({}), 't');
      const t = await readTile(db, ds, a, where, {
        settings,
        encoder,
        source: [['name'], ['nested', 'k'], ['arr'], ['missing']],
      });
      const feats = decodeTile(t.tile)[ds.name].features;
      const f = feats.find((x) => x.type === 1)!;
      expect(f.properties).toEqual({ name: `p${f.id}`, 'nested.k': f.id, arr: `[${f.id}, "x"]` });
      const poly = feats.find((x) => x.id === 3000);
      if (poly) expect(poly.properties).toEqual({});
    }
  });

  it('an empty tile has no features', async () => {
    for (const encoder of encoders()) {
      const t = await tile(ds, { z: 6, x: 0, y: 0 }, {}, { encoder });
      expect(t.n).toBe(0);
      expect(t.tile.length).toBe(0);
    }
  });

  it('applies the read filters to the tile', async () => {
    for (const encoder of encoders()) {
      const t = await tile(
        ds,
        { z: 4, x: 8, y: 5 },
        { filters: 'n+<+number+100,cat+=+string+a' },
        { encoder },
      );
      const ids = decodeTile(t.tile)[ds.name].features.map((f) => f.id);
      const expected = mixed
        .filter(
          (f) => f.geometry.type === 'Point' && (f.properties.n as number) < 100 && f.properties.cat === 'a',
        )
        .filter((f) => {
          const [px, py] = tilePixel(...(f.geometry.coordinates as [number, number]), 4, 8, 5);
          return px >= -64 && px <= 4160 && py >= -64 && py <= 4160;
        })
        .map((f) => f.id);
      expect(ids).toEqual(expected);
      const box = await tile(
        ds,
        { z: 4, x: 8, y: 5 },
        { minx: '10', miny: '40', maxx: '12', maxy: '42' },
        { encoder },
      );
      const boxIds = decodeTile(box.tile)
        [ds.name].features.filter((f) => f.type === 1)
        .map((f) => f.id);
      const expectedBox = mixed
        .filter((f) => f.geometry.type === 'Point')
        .filter((f) => {
          const [lon, lat] = f.geometry.coordinates as [number, number];
          return lon <= 12 && lat <= 42 && tilePixel(lon, lat, 4, 8, 5)[1] <= 4160;
        })
        .map((f) => f.id);
      expect(boxIds).toEqual(expectedBox);
    }
  });
});

// ------------------------------------------------------------------------------------------ thinning
describe('vector tiles: thinning and size guard', () => {
  const knuth = (id: number) => Number((BigInt(id) * 2654435761n) % 4294967296n);

  /** A point's pixel of zoom 22 (2^30 a side) and its place on the Z-order curve, as the levels order them. */
  const zKey = (lon: number, lat: number) => {
    const [fx, fy] = mercator(lon, lat);
    const x = Math.floor(fx * 2 ** 30);
    const y = Math.floor(fy * 2 ** 30);
    let m = 0n;
    for (let b = 29; b >= 0; b--) m = (m << 2n) | (BigInt((x >> b) & 1) << 1n) | BigInt((y >> b) & 1);
    return { x, y, m };
  };

  it('thins deterministically: all under the cap, else the first feature of each pixel on the Z-order curve', async () => {
    // 3000 points on 1200 distinct pixel centres (of 4096) of tile 5/17/11: several points per pixel of
    // 4096, fewer pixels of the tile's 256-pixel rendering.
    const r = rng(7);
    const cells: [number, number][] = [];
    for (let i = 0; i < 1200; i++) cells.push([Math.floor(r() * 4096), Math.floor(r() * 4096)]);
    const feats: TileFeature[] = [];
    for (let i = 1; i <= 3000; i++) {
      const [px, py] = cells[Math.floor(r() * cells.length)];
      feats.push({
        id: i,
        geometry: { type: 'Point', coordinates: pixelCentre(5, 17, 11, px, py) },
        properties: { i, cell: `${px},${py}` },
      });
    }
    const thin = await createFixtureDataset(db, uniqueName('tiles_thin'), feats);
    try {
      const a = { z: 5, x: 17, y: 11 };
      // Independent expectation: per pixel of zoom 5 (the top 13 bits of the zoom-22 pixel), the first
      // point in (Z-order, id) order.
      const first = new Map<string, { m: bigint; id: number }>();
      for (const f of feats) {
        const [lon, lat] = f.geometry.coordinates as [number, number];
        const k = zKey(lon, lat);
        const pixel = `${k.x >> 17},${k.y >> 17}`;
        const seen = first.get(pixel);
        if (!seen || k.m < seen.m || (k.m === seen.m && f.id < seen.id))
          first.set(pixel, { m: k.m, id: f.id });
      }
      const expected = [...first.values()].map((v) => v.id).sort((p, q) => p - q);
      expect(expected.length).toBeGreaterThan(1000);
      expect(expected.length).toBeLessThan(1200);
      for (const encoder of encoders()) {
        const opts = { encoder, settings: { ...settings, maxFeatures: 2000 } };
        const one = await tile(thin, a, {}, opts);
        const two = await tile(thin, a, {}, opts);
        expect(Buffer.compare(one.tile, two.tile)).toBe(0);
        expect(decodeTile(one.tile)[thin.name].features.map((f) => f.id)).toEqual(expected);
        // One per pixel is not thinned: no feature is missing whose pixel no kept feature covers.
        expect(one.thinned).toBe(false);
        // Under the cap nothing is left out: stacked points all stay.
        const all = await tile(thin, a, {}, { encoder, settings: { ...settings, maxFeatures: 5000 } });
        expect(all.n).toBe(3000);
        expect(all.thinned).toBe(false);
        // Over the cap: thinned to it, and marked.
        const capped = await tile(thin, a, {}, { encoder, settings: { ...settings, maxFeatures: 300 } });
        expect(capped.n).toBe(300);
        expect(capped.thinned).toBe(true);
        const ids = decodeTile(capped.tile)[thin.name].features;
        expect(ids.every((f) => f.properties._thinned === true)).toBe(true);
        expect(ids.every((f) => expected.includes(Number(f.id)))).toBe(true);
      }
      // With a filter, a pixel's first feature may fail it: such a tile is marked.
      for (const encoder of encoders()) {
        const opts = { encoder, settings: { ...settings, maxFeatures: 1000 } };
        const t = await tile(thin, a, { filters: 'i+>+number+100' }, opts);
        expect(t.thinned).toBe(true);
        expect(t.n).toBeLessThanOrEqual(1000);
        const under = await tile(thin, a, { filters: 'i+>+number+2500' }, opts);
        expect(under.n).toBe(500);
        expect(under.thinned).toBe(false);
      }
    } finally {
      await dropFixtureDataset(db, thin);
    }
  }, 120_000);

  it('a tile the budget cannot hold keeps its first features in hash order, estimated from a sample', async () => {
    // 3000 points of distinct pixels in tile 5/17/11, each with ~60 bytes of unique text: about 200 KB
    // encoded, under the feature cap (5000), over a 60,000-byte budget.
    const r = rng(11);
    const feats: TileFeature[] = [];
    for (let i = 1; i <= 3000; i++) {
      feats.push({
        id: i,
        geometry: {
          type: 'Point',
          coordinates: pixelCentre(5, 17, 11, (i * 7) % 4096, Math.floor(r() * 4096)),
        },
        properties: { i, text: `${i}-${'abcdefghij'.repeat(5)}-${Math.floor(r() * 1e9)}` },
      });
    }
    const big = await createFixtureDataset(db, uniqueName('tiles_sample'), feats);
    try {
      const a = { z: 5, x: 17, y: 11 };
      const byHash = [...feats].sort((p, q) => knuth(p.id) - knuth(q.id) || p.id - q.id).map((f) => f.id);
      for (const encoder of encoders()) {
        // All candidates (cap 5000), then over the cap (2000 of about 2900 occupied pixels): the same
        // estimate either way.
        for (const maxFeatures of [5000, 2000]) {
          const opts = { encoder, settings: { ...settings, maxFeatures, maxBytes: 60_000 } };
          const t = await tile(big, a, {}, opts);
          expect(t.tile.length).toBeLessThanOrEqual(60_000);
          // One encoding, at the sample's estimate (0.9 of the budget), not a rebuild's shrunken cap.
          expect(t.tile.length).toBeGreaterThan(45_000);
          expect(t.maxFeatures).toBe(maxFeatures);
          const ids = decodeTile(t.tile)[big.name].features.map((f) => Number(f.id));
          // All candidates: the first in hash order. Over the cap: one per pixel first, then the budget.
          if (maxFeatures === 5000)
            expect(ids.sort((p, q) => p - q)).toEqual(byHash.slice(0, t.n).sort((p, q) => p - q));
          expect(t.thinned).toBe(true);
          const again = await tile(big, a, {}, opts);
          expect(Buffer.compare(again.tile, t.tile)).toBe(0);
        }
        // Within the budget, nothing is dropped.
        const all = await tile(big, a, {}, { encoder, settings: { ...settings, maxFeatures: 5000 } });
        expect(all.n).toBe(3000);
      }
    } finally {
      await dropFixtureDataset(db, big);
    }
  }, 120_000);

  it('z0 over many points stays within 1 MB (and any byte budget given)', async () => {
    const count = isEmbedded() ? 20_000 : 200_000;
    const r = rng(99);
    const feats: TileFeature[] = [];
    for (let i = 1; i <= count; i++) {
      // A dense cluster and a sparse spread, as the bench data.
      const dense = i % 2 === 0;
      const lon = dense ? -105 + r() * 0.5 : -180 + r() * 360;
      const lat = dense ? 39 + r() * 0.5 : -80 + r() * 160;
      feats.push({
        id: i,
        geometry: { type: 'Point', coordinates: [lon, lat] },
        properties: {
          value: Math.round(r() * 1e6) / 100,
          name: `feature ${i}`,
          kind: i % 5 === 0 ? 'x' : 'y',
        },
      });
    }
    const big = await createFixtureDataset(db, uniqueName('tiles_big'), feats);
    try {
      for (const encoder of encoders()) {
        const started = Date.now();
        const t = await tile(big, { z: 0, x: 0, y: 0 }, {}, { encoder });
        const ms = Date.now() - started;
        console.log(
          `z0 over ${count} points (${encoder}): ${t.tile.length} bytes, ${t.n} features, ${ms} ms`,
        );
        expect(t.tile.length).toBeLessThanOrEqual(1_000_000);
        expect(t.n).toBeGreaterThan(1000);
        expect(t.n).toBeLessThanOrEqual(4096); // the z0 cap
        const small = await tile(
          big,
          { z: 0, x: 0, y: 0 },
          {},
          { encoder, settings: { ...settings, maxBytes: 60_000 } },
        );
        expect(small.tile.length).toBeLessThanOrEqual(60_000);
        expect(small.n).toBeGreaterThan(100);
        // The same request gives the same bytes.
        const again = await tile(big, { z: 0, x: 0, y: 0 }, {}, { encoder });
        expect(Buffer.compare(again.tile, t.tile)).toBe(0);
      }
    } finally {
      await dropFixtureDataset(db, big);
    }
  }, 180_000);
});

// ------------------------------------------------------------------------------------ pixel levels
describe('vector tiles: the pixel levels follow the writes', () => {
  /**
   * The layer's overview against one built afresh from a copy of its rows, compared in the database:
   * its rows, and the rows that differ in any column (id, Z-order key, level, moved box).
   */
  async function levelsAgainstFresh(ds: Geodataset) {
    const copy = `gd_0_9${ds.id}`;
    await db.sql.unsafe(`drop table if exists ${copy}`);
    await db.sql.unsafe(`drop table if exists ${copy}_ovr`);
    await db.sql.unsafe(`create table ${copy} as select * from ${ds.table}`);
    await createRankLevels(db.sql, copy);
    const cols = (t: string) => `select id, gh, x, y, zs, mz, ST_AsText(k) as k from ${t}`;
    const [r] = await db.sql.unsafe(`
      with o as (${cols(overviewName(ds.table))}), f as (${cols(`${copy}_ovr`)})
      select (select count(*) from o)::int as rows, (select count(*) from f)::int as fresh,
        (select count(*) from ((select * from o except all select * from f)
                               union all (select * from f except all select * from o)) d)::int as differing,
        (select count(*) from ${ds.table} where not ST_IsEmpty(geom))::int as features`);
    await db.sql.unsafe(`drop table ${copy}`);
    await db.sql.unsafe(`drop table ${copy}_ovr`);
    return r as unknown as { rows: number; fresh: number; differing: number; features: number };
  }

  it('an insert, an update (of an id too), a delete and a truncate of the layer keep its levels exact', async () => {
    const feats: TileFeature[] = [];
    for (let i = 1; i <= 2000; i++)
      feats.push({
        id: i,
        geometry: { type: 'Point', coordinates: [i / 100, 10 + (i % 7) / 1000] },
        properties: { i },
      });
    const layer = await createFixtureDataset(db, uniqueName('tiles_ovr'), feats);
    try {
      const t = sqlTable(db.sql, layer);
      const check = async (rows: number) => {
        const o = await levelsAgainstFresh(layer);
        expect(o.features).toBe(rows);
        expect(o.rows).toBe(rows);
        expect(o.fresh).toBe(rows);
        expect(o.differing).toBe(0);
      };
      await check(2000);
      await db.sql`insert into ${t} (id, geom, properties, group_id)
        select 2000 + i, ST_SetSRID(ST_MakePoint(i / 100.0, 10.0005 + (i % 3) / 1000.0), 4326), jsonb_build_object('i', i), 'g' || i
        from generate_series(1, 500) i`;
      await check(2500);
      await db.sql`update ${t} set geom = ST_SetSRID(ST_MakePoint(1, 1), 4326),
        properties = jsonb_build_object('moved', true), start_time = '2024-01-01T00:00:00Z' where id % 3 = 0`;
      await db.sql`update ${t} set id = id + 100000 where id % 7 = 0`;
      await check(2500);
      await db.sql`insert into ${t} (id, geom, properties) values
        (900001, ST_SetSRID(ST_GeomFromText('LINESTRING(0 0, 8 3)'), 4326), '{}'),
        (900002, ST_SetSRID(ST_GeomFromText('POLYGON((2 9, 2.001 9, 2.001 9.001, 2 9))'), 4326), '{}')`;
      await check(2502);
      await db.sql`delete from ${t} where id % 5 = 0`;
      await check(Number((await db.sql`select count(*)::int as c from ${t}`)[0].c));
      await db.sql`truncate ${t}`;
      await check(0);
    } finally {
      await dropFixtureDataset(db, layer);
    }
  }, 120_000);

  it('a load, a recreate, an append and a removal through the write paths make, keep and drop them', async () => {
    const fc = (n: number, lat: number) => ({
      type: 'FeatureCollection',
      features: Array.from({ length: n }, (_, i) => ({
        type: 'Feature',
        geometry: { type: 'Point', coordinates: [(i % 1000) / 10, lat + Math.floor(i / 1000) / 100] },
        properties: { i },
      })),
    });
    const name = uniqueName('tiles_ovr_writes');
    const tables = async (id: number) =>
      (await db.sql`select tablename from pg_tables where tablename like ${`gd_${id}_%`} order by 1`).map(
        (r) => String(r.tablename),
      );
    await recreateGeodataset(db, fc(5000, 0), { name });
    try {
      let layer = await requireDataset(db.sql, name);
      expect(await tables(layer.id)).toEqual([layer.table, overviewName(layer.table)].sort());
      let o = await levelsAgainstFresh(layer);
      expect(o.rows).toBe(5000);
      expect(o.differing).toBe(0);
      // A recreate swaps the tables: the new overview takes the old one's name, the old one is gone.
      await recreateGeodataset(db, fc(5000, 30), { name });
      layer = await requireDataset(db.sql, name);
      expect(await tables(layer.id)).toEqual([layer.table, overviewName(layer.table)].sort());
      o = await levelsAgainstFresh(layer);
      expect(o.rows).toBe(5000);
      expect(o.differing).toBe(0);
      await appendGeodataset(db, fc(300, 30.005), { name });
      o = await levelsAgainstFresh(layer);
      expect(o.rows).toBe(5300);
      expect(o.differing).toBe(0);
      // A tile over the cap is one per pixel.
      layer = await requireDataset(db.sql, name);
      const a = tileOf(50, 30.01, 3);
      for (const encoder of encoders()) {
        const t = await tile(layer, a, {}, { encoder, settings: { ...settings, maxFeatures: 3000 } });
        expect(t.n).toBeGreaterThan(500);
        expect(t.n).toBeLessThanOrEqual(3000);
      }
      // A lost overview is made again by the next tile (a lazy rebuild).
      await db.sql.unsafe(`drop table ${overviewName(layer.table)}`);
      const again = await tile(layer, a, {}, { settings: { ...settings, maxFeatures: 3000 } });
      expect(again.n).toBeGreaterThan(500);
      expect(await tables(layer.id)).toEqual([layer.table, overviewName(layer.table)].sort());
      await removeGeodataset(db, name);
      expect(await tables(layer.id)).toEqual([]);
    } finally {
      await removeGeodataset(db, name).catch(() => {});
    }
  }, 300_000);
});
