import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '#lib/db/index.ts';
import { type Geodataset, requireDataset, sqlTable } from '#lib/geodatasets/catalog.ts';
import { removeGeodataset } from '#lib/geodatasets/manage.ts';
import { createRankLevels, overviewName, sqlOverview } from '#lib/geodatasets/rank.ts';
import { parseReadFilters, sqlWhere } from '#lib/geodatasets/read/filters.ts';
import { rankRead, readTile, type Tile } from '#lib/geodatasets/tiles/readTile.ts';
import { PREFIX } from '#lib/geodatasets/tiles/thinningSql.ts';
import type { TileAddress, TileSettings } from '#lib/geodatasets/tiles/tileParams.ts';
import { sqlTileRows } from '#lib/geodatasets/tiles/tileSql.ts';
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

  it('thins deterministically: in id-hash order, one point per pixel, up to the cap', async () => {
    // 3000 points on 1200 distinct pixel centres of tile 5/17/11 (several points per pixel).
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
      // The overview and levels 1-3 a large layer would have (this one is too small for them).
      await createRankLevels(db.sql, thin.table, feats.length, 3);
      const a = { z: 5, x: 17, y: 11 };
      // Independent expectation: candidates in hash order, the first PREFIX × 300 of them, the first point
      // of each pixel, at most 300.
      const ordered = [...feats]
        .sort((p, q) => knuth(p.id) - knuth(q.id) || p.id - q.id)
        .slice(0, PREFIX * 300);
      const seen = new Set<string>();
      const expected: number[] = [];
      for (const f of ordered) {
        const key = String(f.properties.cell);
        if (seen.has(key)) continue;
        seen.add(key);
        if (expected.length < 300) expected.push(f.id);
      }
      expected.sort((p, q) => p - q);
      expect(expected).toHaveLength(300);
      for (const encoder of encoders()) {
        const opts = { encoder, settings: { ...settings, maxFeatures: 300 } };
        const one = await tile(thin, a, {}, opts);
        const two = await tile(thin, a, {}, opts);
        expect(Buffer.compare(one.tile, two.tile)).toBe(0);
        expect(decodeTile(one.tile)[thin.name].features.map((f) => f.id)).toEqual(expected);
        // Under the cap nothing is thinned: stacked points all stay.
        const all = await tile(thin, a, {}, { encoder, settings: { ...settings, maxFeatures: 5000 } });
        expect(all.n).toBe(3000);
        // Read through rank level 1 (a quarter of the features: about 750 of the 600 needed), the same tile.
        const ranked = await tile(thin, a, {}, { ...opts, levels: 1 });
        expect(Buffer.compare(ranked.tile, one.tile)).toBe(0);
      }
      expect((await rankRead(db, thin, a, db.sql`true`, 300, 1)).level).toBe(1);
      expect((await rankRead(db, thin, a, db.sql`true`, 300, 3)).level).toBe(1);
      // At cap 50, level 2 holds the first 100 and its count (100) shows the tile thinned: the statement
      // does not count the box, and the tile is the whole box's.
      expect(await rankRead(db, thin, a, db.sql`true`, 50, 3)).toEqual({ level: 2, thinned: true });
      for (const encoder of encoders()) {
        const opts = { encoder, settings: { ...settings, maxFeatures: 50 } };
        const viaLevel = await tile(thin, a, {}, { ...opts, levels: 3 });
        expect(viaLevel.n).toBe(50);
        expect(Buffer.compare(viaLevel.tile, (await tile(thin, a, {}, { ...opts, levels: 0 })).tile)).toBe(0);
      }
      // Level 1 cannot hold 2 × 700 of the tile's features (about 750), nor 700 distinct pixels: the tile
      // is its level-1 candidates thinned, fewer than the whole box's.
      expect((await rankRead(db, thin, a, db.sql`true`, 700, 3)).level).toBe(1);
      const level1 = [...feats]
        .filter((f) => knuth(f.id) < 2 ** 30)
        .sort((p, q) => knuth(p.id) - knuth(q.id) || p.id - q.id);
      const seen1 = new Set<string>();
      const expected1: number[] = [];
      for (const f of level1) {
        const key = String(f.properties.cell);
        if (seen1.has(key)) continue;
        seen1.add(key);
        expected1.push(f.id);
      }
      expected1.sort((p, q) => p - q);
      expect(level1.length).toBeLessThan(PREFIX * 700);
      expect(expected1.length).toBeGreaterThan(300);
      expect(expected1.length).toBeLessThan(700);
      for (const encoder of encoders()) {
        const opts = { encoder, settings: { ...settings, maxFeatures: 700 }, levels: 3 };
        const t = await tile(thin, a, {}, opts);
        expect(decodeTile(t.tile)[thin.name].features.map((f) => f.id)).toEqual(expected1);
        // Without levels (a small layer's tiles) the whole box is ranked: up to the cap.
        const whole = await tile(thin, a, {}, { ...opts, levels: 0 });
        expect(whole.n).toBe(700);
      }
      // A level holding fewer than the first 600 in rank order (level 2: about 190) gives another tile.
      const kept = async (level: number) =>
        (await sqlTileRows(db.sql, thin, a, db.sql`true`, 300, level)).map((r: any) => Number(r.id));
      expect(await kept(1)).toEqual(await kept(0));
      expect(await kept(2)).not.toEqual(await kept(0));
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
        // Not thinned (cap 5000), then thinned first (cap 2000 of 3000 candidates, one per pixel): the
        // same estimate either way.
        for (const maxFeatures of [5000, 2000]) {
          const opts = { encoder, settings: { ...settings, maxFeatures, maxBytes: 60_000 } };
          const t = await tile(big, a, {}, opts);
          expect(t.tile.length).toBeLessThanOrEqual(60_000);
          // One encoding, at the sample's estimate (0.9 of the budget), not a rebuild's shrunken cap.
          expect(t.tile.length).toBeGreaterThan(45_000);
          expect(t.maxFeatures).toBe(maxFeatures);
          const ids = decodeTile(t.tile)[big.name].features.map((f) => Number(f.id));
          expect(ids.sort((p, q) => p - q)).toEqual(byHash.slice(0, t.n).sort((p, q) => p - q));
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

// ------------------------------------------------------------------------------------ rank overview
describe('vector tiles: the rank overview follows the writes', () => {
  /** The overview's rows and the layer's level-1 rows (h(id) < 2^30), each column as text. */
  /**
   * The overview against the layer's level-1 rows, compared in the database (every column; a read of
   * thousands of rows through the Data API driver's oversize path took minutes): the rows of each, the
   * rows in one and not in the other, and the overview's lowest and highest latitude.
   */
  async function overviewAndLevel1(ds: Geodataset) {
    const cols = (t: unknown) => db.sql`
      select id, ST_AsText(geom) as g, properties::text as p, start_time, end_time, group_id, feature_id
      from ${t as any} t
      where ((id * 2654435761::bigint) % 4294967296::bigint) < 1073741824::bigint`;
    const [r] = await db.sql`
      with o as (${cols(sqlOverview(db.sql, ds))}), l as (${cols(sqlTable(db.sql, ds))})
      select (select count(*) from o)::int as overview, (select count(*) from l)::int as level1,
        (select count(*) from ((select * from o except all select * from l)
                               union all (select * from l except all select * from o)) d)::int as differing,
        (select min(ST_Y(geom)) from ${sqlOverview(db.sql, ds)})::float8 as "minLat",
        (select max(ST_Y(geom)) from ${sqlOverview(db.sql, ds)})::float8 as "maxLat"`;
    return r as { overview: number; level1: number; differing: number; minLat: number; maxLat: number };
  }

  it('an insert, an update (of an id too), a delete and a truncate of the layer keep its overview exact', async () => {
    const feats: TileFeature[] = [];
    for (let i = 1; i <= 2000; i++)
      feats.push({ id: i, geometry: { type: 'Point', coordinates: [i / 100, 10] }, properties: { i } });
    const layer = await createFixtureDataset(db, uniqueName('tiles_ovr'), feats);
    try {
      await createRankLevels(db.sql, layer.table, feats.length, 2);
      const t = sqlTable(db.sql, layer);
      const check = async (rows: number) => {
        const { overview, level1, differing } = await overviewAndLevel1(layer);
        expect(level1).toBe(rows);
        expect(overview).toBe(rows);
        expect(differing).toBe(0);
      };
      const count = async () =>
        Number(
          (
            await db.sql`select count(*)::int as c from ${t}
              where ((id * 2654435761::bigint) % 4294967296::bigint) < 1073741824::bigint`
          )[0].c,
        );
      await check(await count());
      expect(await count()).toBeGreaterThan(400);
      await db.sql`insert into ${t} (id, geom, properties, group_id)
        select 2000 + i, ST_SetSRID(ST_MakePoint(i / 100.0, 20), 4326), jsonb_build_object('i', i), 'g' || i
        from generate_series(1, 500) i`;
      await check(await count());
      await db.sql`update ${t} set geom = ST_SetSRID(ST_MakePoint(1, 1), 4326),
        properties = jsonb_build_object('moved', true), start_time = '2024-01-01T00:00:00Z' where id % 3 = 0`;
      await db.sql`update ${t} set id = id + 100000 where id % 7 = 0`;
      await check(await count());
      await db.sql`delete from ${t} where id % 5 = 0`;
      await check(await count());
      await db.sql`truncate ${t}`;
      await check(0);
    } finally {
      await dropFixtureDataset(db, layer);
    }
  }, 120_000);

  it('a load, a recreate, an append and a removal through the write paths make, keep and drop it', async () => {
    // 33,000 points: the smallest layers with a rank level (a quarter of them ≥ 8,192).
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
    await recreateGeodataset(db, fc(33_000, 0), { name });
    try {
      let layer = await requireDataset(db.sql, name);
      expect(await tables(layer.id)).toEqual([layer.table, overviewName(layer.table)].sort());
      let o = await overviewAndLevel1(layer);
      expect(o.overview).toBeGreaterThan(8192);
      expect(o.overview).toBe(o.level1);
      expect(o.differing).toBe(0);
      // A recreate swaps the tables: the new overview takes the old one's name, the old one is gone.
      await recreateGeodataset(db, fc(33_000, 30), { name });
      layer = await requireDataset(db.sql, name);
      expect(await tables(layer.id)).toEqual([layer.table, overviewName(layer.table)].sort());
      o = await overviewAndLevel1(layer);
      expect(o.overview).toBe(o.level1);
      expect(o.differing).toBe(0);
      expect(o.minLat).toBeGreaterThanOrEqual(30);
      await appendGeodataset(db, fc(300, 60), { name });
      o = await overviewAndLevel1(layer);
      expect(o.overview).toBe(o.level1);
      expect(o.differing).toBe(0);
      expect(o.maxLat).toBeGreaterThanOrEqual(60);
      // A thinned tile of it reads the overview.
      layer = await requireDataset(db.sql, name);
      const a = tileOf(50, 30.1, 3);
      expect((await rankRead(db, layer, a, db.sql`true`, 1000)).level).toBe(1);
      for (const encoder of encoders()) {
        const t = await tile(layer, a, {}, { encoder, settings: { ...settings, maxFeatures: 1000 } });
        expect(t.n).toBeGreaterThan(500);
        expect(t.n).toBeLessThanOrEqual(1000);
      }
      await removeGeodataset(db, name);
      expect(await tables(layer.id)).toEqual([]);
    } finally {
      await removeGeodataset(db, name).catch(() => {});
    }
  }, 300_000);
});
