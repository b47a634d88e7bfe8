import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { qgisPython, runQgis } from '../fixtures/qgis.ts';
import { CENTRES, clusteredLayer, type PixelFeature, pixelOf } from '../fixtures/tiles.ts';
import { admin } from '../fixtures/uploads.ts';
import { call, uniqueName } from '../helpers.ts';

/**
 * QGIS itself (headless PyQGIS, Debian's python3-qgis) draws the clustered layer of the thinning proofs as
 * a vector tile layer from its TileJSON's URL, as a QGIS user looks at a region (docs/tiles.md,
 * "Thinning"): QGIS picks the zoom for the map's scale, fetches and decodes the tiles itself, and the
 * script reports every feature it decoded. Every point of the view whose pixel no drawn feature covers
 * would be a point the user cannot see: there are none at the regional zoom, and from the layer's
 * full-detail zoom on every point is drawn.
 */

const script = fileURLToPath(new URL('../fixtures/qgis_vector_tiles.py', import.meta.url));
const name = uniqueName('tiles_qgis');
const feats = clusteredLayer();
const byI = new Map(feats.map((f) => [f.id, f]));

const python = await qgisPython();

interface Drawn {
  zoom: number;
  tiles: [number, number, number][];
  features: { i: number; thinned: boolean; lon: number; lat: number }[];
}

/** QGIS's drawing of the box at `zoom` (the script reports what it decoded). */
async function draw(template: string, zoom: number, box: [number, number, number, number]): Promise<Drawn> {
  const stdout = await runQgis(python!, script, [template, name, String(zoom), ...box.map(String)]);
  return JSON.parse(stdout) as Drawn;
}

/** The layer's points inside the box, and those whose pixel at `zoom` holds no feature QGIS drew. */
function seen(drawn: Drawn, zoom: number, [w, s, e, n]: [number, number, number, number]) {
  const inside = feats.filter((f) => {
    const [lon, lat] = f.geometry.coordinates as [number, number];
    return lon >= w && lon <= e && lat >= s && lat <= n;
  });
  const drawnIds = new Set(drawn.features.map((f) => Number(f.i)));
  const covered = new Set([...drawnIds].map((i) => pixelOf(byI.get(i) as PixelFeature, zoom).key));
  return {
    inside: inside.length,
    drawn: inside.filter((f) => drawnIds.has(f.id)).length,
    unseen: inside.filter((f) => !covered.has(pixelOf(f, zoom).key)).map((f) => f.id),
  };
}

let template = '';
let fullDetail = 0;

beforeAll(async () => {
  const features = feats.map((f) => ({ type: 'Feature', geometry: f.geometry, properties: f.properties }));
  const r = await call('POST', '/api/geodatasets/recreate', {
    ...admin(),
    body: { name, geojson: { type: 'FeatureCollection', features } },
  });
  expect(r.status).toBe(200);
  const tj = await call('GET', `/api/geodatasets/tilejson/${name}`);
  expect(tj.status).toBe(200);
  template = tj.body.tiles[0];
  fullDetail = tj.body.full_detail_zoom;
}, 120_000);

describe.skipIf(!python)('QGIS draws the tiles', () => {
  it('a regional view at z8 over a cluster: every point is drawn or shares its pixel with one drawn', async () => {
    // (The odd points cluster around CENTRES[1] and CENTRES[3].)
    const [lon, lat] = CENTRES[1];
    const box: [number, number, number, number] = [lon - 1.2, lat - 1, lon + 1.2, lat + 1];
    const drawn = await draw(template, 8, box);
    expect(drawn.zoom).toBe(8);
    const v = seen(drawn, 8, box);
    console.log(
      `QGIS z8 view: ${v.inside} points, ${v.drawn} drawn, ${v.unseen.length} on a pixel nothing drawn covers`,
    );
    // About 1,400 points in the view, most of them on pixels of their own.
    expect(v.inside).toBeGreaterThan(1000);
    expect(v.drawn).toBeGreaterThan(0.9 * v.inside);
    expect(v.unseen).toEqual([]);
    expect(drawn.features.filter((f) => f.thinned)).toEqual([]);
  });

  it("from the layer's full-detail zoom on, QGIS draws every point of the view", async () => {
    expect(fullDetail).toBeGreaterThan(8);
    expect(fullDetail).toBeLessThanOrEqual(14);
    const [lon, lat] = CENTRES[3];
    const box: [number, number, number, number] = [lon - 0.1, lat - 0.07, lon + 0.1, lat + 0.07];
    const drawn = await draw(template, fullDetail, box);
    expect(drawn.zoom).toBe(fullDetail);
    const v = seen(drawn, fullDetail, box);
    console.log(`QGIS z${fullDetail} view: ${v.inside} points, ${v.drawn} drawn`);
    expect(v.inside).toBeGreaterThan(20);
    expect(v.drawn).toBe(v.inside);
  });
});
