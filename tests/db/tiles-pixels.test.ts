import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '#lib/db/index.ts';
import type { Geodataset } from '#lib/geodatasets/catalog.ts';
import { fullDetailZoom } from '#lib/geodatasets/rank.ts';
import { type TileAddress, tileSettings } from '#lib/geodatasets/read/tileParams.ts';
import { readTile, type Tile } from '#lib/geodatasets/tiles/readTile.ts';
import { createFixtureDataset, dropFixtureDataset } from '../fixtures/geodatasets.ts';
import {
  CENTRES,
  clusteredLayer,
  decodeTile,
  mercator,
  type PixelFeature,
  pixelOf,
  rng,
} from '../fixtures/tiles.ts';
import { uniqueName } from '../helpers.ts';

/**
 * The thinning rule of docs/tiles.md ("Thinning"), proved on decoded tiles of a clustered layer at every
 * zoom 0-14, with each encoder the database has (run once on the server database, once on the embedded
 * one): a feature is left out of a tile only when a feature the tile keeps lies on the same pixel of its
 * 256-pixel rendering, unless the tile is marked thinned, which it is only when its occupied pixels are
 * more than the feature cap; from the layer's full-detail zoom on, every feature is there.
 */

const db = getDb();

/** The tiles checked at zoom z: every occupied one up to 24 of them, else the clusters' and 20 seeded others. */
function tilesAt(feats: PixelFeature[], z: number): TileAddress[] {
  const all = new Map<string, TileAddress>();
  for (const f of feats) {
    const { x, y } = pixelOf(f, z);
    all.set(`${x}/${y}`, { z, x, y });
  }
  if (all.size <= 24) return [...all.values()];
  const picked = new Map<string, TileAddress>();
  const add = (lon: number, lat: number) => {
    const [fx, fy] = mercator(lon, lat);
    const a = { z, x: Math.floor(fx * 2 ** z), y: Math.floor(fy * 2 ** z) };
    picked.set(`${a.x}/${a.y}`, a);
  };
  for (const [lon, lat] of CENTRES) add(lon, lat);
  const r = rng(z + 1);
  for (let i = 0; i < 20; i++) {
    const [lon, lat] = feats[Math.floor(r() * feats.length)].geometry.coordinates as [number, number];
    add(lon, lat);
  }
  return [...picked.values()];
}

interface Check {
  /** Occupied pixels of the tile grown by its buffer (4 pixels a side): the one-per-pixel set a tile reads. */
  boxPixels: number;
  features: number;
  present: number;
  pixels: number;
  covered: number;
  uncovered: number[];
  thinned: boolean;
}

/** What tile `a` holds of the features inside it: present, and their pixels covered by a kept feature. */
function check(
  feats: PixelFeature[],
  byId: Map<number, PixelFeature>,
  a: TileAddress,
  t: Tile,
  layer: string,
): Check {
  const kept = new Set((t.n ? decodeTile(t.tile)[layer].features : []).map((f) => Number(f.id)));
  const keptPixels = new Set([...kept].map((id) => pixelOf(byId.get(id) as PixelFeature, a.z).key));
  const inside = feats.filter((f) => {
    const p = pixelOf(f, a.z);
    return p.x === a.x && p.y === a.y;
  });
  const pixels = new Set(inside.map((f) => pixelOf(f, a.z).key));
  const inBox = (v: number, t: number) => v >= t * 256 - 4 && v < t * 256 + 260;
  const boxPixels = new Set(
    feats
      .map((f) => pixelOf(f, a.z))
      .filter((p) => inBox(p.px, a.x) && inBox(p.py, a.y))
      .map((p) => p.key),
  ).size;
  const uncovered = inside
    .filter((f) => !kept.has(f.id) && !keptPixels.has(pixelOf(f, a.z).key))
    .map((f) => f.id);
  return {
    boxPixels,
    features: inside.length,
    present: inside.filter((f) => kept.has(f.id)).length,
    pixels: pixels.size,
    covered: [...pixels].filter((p) => keptPixels.has(p)).length,
    uncovered,
    thinned: t.thinned,
  };
}

let asMvt = false;
let layer: Geodataset;
const feats = clusteredLayer();
const byId = new Map(feats.map((f) => [f.id, f]));

beforeAll(async () => {
  asMvt = (await db.capabilities()).asMvt;
  layer = await createFixtureDataset(db, uniqueName('tiles_pixels'), feats);
}, 120_000);

afterAll(async () => {
  if (layer) await dropFixtureDataset(db, layer);
});

describe('vector tiles: only what shares a pixel is left out', () => {
  it('every feature whose pixel no kept feature covers is present, at every zoom 0-14; all from the full-detail zoom', async () => {
    const full = await fullDetailZoom(db.sql, layer);
    expect(full).toBeGreaterThan(8);
    const settings = tileSettings();
    const rows: string[] = [];
    for (const encoder of (asMvt ? ['st_asmvt', 'vt-pbf'] : ['vt-pbf']) as Tile['encoder'][]) {
      for (let z = 0; z <= 14; z++) {
        const sum = { tiles: 0, features: 0, present: 0, pixels: 0, covered: 0, uncovered: 0, thinned: 0 };
        for (const a of tilesAt(feats, z)) {
          const t = await readTile(db, layer, a, db.sql`true`, { settings, encoder });
          const c = check(feats, byId, a, t, layer.name);
          sum.tiles++;
          sum.features += c.features;
          sum.present += c.present;
          sum.pixels += c.pixels;
          sum.covered += c.covered;
          sum.uncovered += c.uncovered.length;
          sum.thinned += c.thinned ? 1 : 0;
          if (c.thinned) {
            // Thinned only when its occupied pixels are more than the cap, and then to the cap.
            expect(c.boxPixels).toBeGreaterThan(settings.maxFeatures);
            expect(t.n).toBeGreaterThan(settings.maxFeatures * 0.95);
          } else {
            expect({ tile: a, uncovered: c.uncovered }).toEqual({ tile: a, uncovered: [] });
            expect(c.covered).toBe(c.pixels);
          }
          if (z >= full) expect(c.present).toBe(c.features);
        }
        rows.push(
          `| ${encoder} | ${z} | ${sum.tiles} | ${sum.present} / ${sum.features} | ${sum.covered} / ${sum.pixels} | ${sum.uncovered} | ${sum.thinned} |`,
        );
      }
    }
    console.log(
      `full-detail zoom ${full}\n| encoder | z | tiles | features present / in the tiles | pixels covered / occupied | uncovered | thinned tiles |\n|---|---|---|---|---|---|---|\n${rows.join('\n')}`,
    );
  }, 600_000);

  it('over the cap a tile keeps the coarsest levels whole, thins the next evenly, and is marked', async () => {
    const a = (() => {
      const [fx, fy] = mercator(CENTRES[1][0], CENTRES[1][1]);
      return { z: 7, x: Math.floor(fx * 128), y: Math.floor(fy * 128) };
    })();
    for (const encoder of (asMvt ? ['st_asmvt', 'vt-pbf'] : ['vt-pbf']) as Tile['encoder'][]) {
      const settings = { ...tileSettings(), maxFeatures: 300 };
      const t = await readTile(db, layer, a, db.sql`true`, { settings, encoder });
      expect(t.thinned).toBe(true);
      // 300 kept, less any that lies in the buffer's box but not in the MVT buffer.
      expect(t.n).toBeLessThanOrEqual(300);
      expect(t.n).toBeGreaterThan(290);
      const decoded = decodeTile(t.tile)[layer.name].features;
      expect(decoded.every((f) => f.properties._thinned === true)).toBe(true);
      // Evenly: every occupied pixel of some coarser zoom (the coarsest levels, kept whole) is covered.
      const kept = decoded.map((f) => byId.get(Number(f.id)) as PixelFeature);
      const inside = feats.filter((f) => {
        const p = pixelOf(f, a.z);
        return p.x === a.x && p.y === a.y;
      });
      let whole = -1;
      let fits = -1;
      for (let z = 0; z <= a.z; z++) {
        const keptPixels = new Set(kept.map((f) => pixelOf(f, z).key));
        if (inside.every((f) => keptPixels.has(pixelOf(f, z).key))) whole = z;
        if (new Set(inside.map((f) => pixelOf(f, z).key)).size <= 300) fits = z;
      }
      // The deepest zoom whose occupied pixels fit the cap, or the one before (the buffer's features count too).
      expect(whole).toBeGreaterThanOrEqual(fits - 1);
      // The same request gives the same bytes.
      const again = await readTile(db, layer, a, db.sql`true`, { settings, encoder });
      expect(Buffer.compare(again.tile, t.tile)).toBe(0);
      // Unthinned tiles carry no mark.
      const whole7 = await readTile(db, layer, a, db.sql`true`, { settings: tileSettings(), encoder });
      expect(whole7.thinned).toBe(false);
      expect(decodeTile(whole7.tile)[layer.name].features.some((f) => '_thinned' in f.properties)).toBe(
        false,
      );
    }
  }, 300_000);
});
