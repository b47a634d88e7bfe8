import { beforeAll, describe, expect, it } from 'vitest';
import { decodeTile, mercator } from '../fixtures/tiles.ts';
import { adminToken, apiUrl, apiUrlLocal, call, uniqueName } from '../helpers.ts';

/** OGC API – Tiles over the geodatasets (docs/ogc-tiles.md). */

const name = uniqueName('ogctiles');
const points: { c: [number, number]; p: Record<string, unknown> }[] = [
  { c: [-10.5, 20.25], p: { n: 1, s: 'a', b: true, o: { k: 1 } } },
  { c: [30, -5.5], p: { n: 2.5, s: 'b', b: false } },
  { c: [12, 60], p: { n: 3, s: 'c' } },
];
const MVT = 'application/vnd.mapbox-vector-tile';
const TMS_URI = 'http://www.opengis.net/def/tilematrixset/OGC/1.0/WebMercatorQuad';
const base = () => `${apiUrl()}/api/ogc`;

/** The tile (z, row, col) holding a lon/lat point, by the test's own Web Mercator math. */
function tileOf([lon, lat]: [number, number], z: number): { row: number; col: number } {
  const [fx, fy] = mercator(lon, lat);
  return { row: Math.floor(fy * 2 ** z), col: Math.floor(fx * 2 ** z) };
}

function expand(template: string, z: number, row: number, col: number): string {
  return template
    .replace('{tileMatrix}', String(z))
    .replace('{tileRow}', String(row))
    .replace('{tileCol}', String(col));
}

let tileset: any;

beforeAll(async () => {
  const r = await call('POST', '/api/geodatasets/recreate', {
    token: adminToken(),
    body: {
      name,
      geojson: {
        type: 'FeatureCollection',
        features: points.map((f) => ({
          type: 'Feature',
          geometry: { type: 'Point', coordinates: f.c },
          properties: f.p,
        })),
      },
    },
  });
  expect(r.status, r.text).toBe(200);
  tileset = (await call('GET', `/api/ogc/collections/${name}/tiles/WebMercatorQuad`)).body;
});

describe('tile matrix sets', () => {
  it('lists WebMercatorQuad with a link to its definition', async () => {
    const r = await call('GET', '/api/ogc/tileMatrixSets?f=json');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.body.tileMatrixSets).toEqual([
      {
        id: 'WebMercatorQuad',
        title: expect.any(String),
        uri: TMS_URI,
        links: [expect.objectContaining({ rel: 'self', href: `${base()}/tileMatrixSets/WebMercatorQuad` })],
      },
    ]);
  });

  it('defines WebMercatorQuad as the OGC 2D TMS standard does (25 matrices, 0..24)', async () => {
    const r = await call('GET', '/api/ogc/tileMatrixSets/WebMercatorQuad');
    expect(r.status).toBe(200);
    const tms = r.body;
    expect(tms).toMatchObject({
      id: 'WebMercatorQuad',
      uri: TMS_URI,
      crs: 'http://www.opengis.net/def/crs/EPSG/0/3857',
      wellKnownScaleSet: 'http://www.opengis.net/def/wkss/OGC/1.0/GoogleMapsCompatible',
    });
    expect(tms.tileMatrices).toHaveLength(25);
    // The standard's published figures (TMS 2.0, Annex D), to their 15 significant digits.
    const published: [number, number, number][] = [
      [0, 559082264.028717, 156543.033928041],
      [1, 279541132.014358, 78271.5169640204],
      [12, 136494.693366386, 38.2185141425881],
      [24, 33.3238997476528, 0.0093306919293428],
    ];
    for (const [z, scale, cell] of published) {
      const m = tms.tileMatrices[z];
      expect(m.id).toBe(String(z));
      expect(Math.abs(m.scaleDenominator / scale - 1)).toBeLessThan(1e-12);
      expect(Math.abs(m.cellSize / cell - 1)).toBeLessThan(1e-12);
      expect(m.matrixWidth).toBe(2 ** z);
      expect(m.matrixHeight).toBe(2 ** z);
      expect(m.tileWidth).toBe(256);
      expect(m.tileHeight).toBe(256);
      expect(m.pointOfOrigin[0]).toBeCloseTo(-20037508.3427892, 6);
      expect(m.pointOfOrigin[1]).toBeCloseTo(20037508.3427892, 6);
    }
  });

  it('404 for another tile matrix set, 400 for another format', async () => {
    const r = await call('GET', '/api/ogc/tileMatrixSets/WorldCRS84Quad');
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ status: 'failure', message: expect.stringContaining('WorldCRS84Quad') });
    const f = await call('GET', '/api/ogc/tileMatrixSets?f=xml');
    expect(f.status).toBe(400);
    expect(f.body.message).toContain('f');
  });
});

describe('tilesets of a collection', () => {
  it('lists one vector tileset in WebMercatorQuad', async () => {
    const r = await call('GET', `/api/ogc/collections/${name}/tiles`);
    expect(r.status).toBe(200);
    expect(r.body.tilesets).toHaveLength(1);
    const t = r.body.tilesets[0];
    expect(t).toMatchObject({
      dataType: 'vector',
      crs: 'http://www.opengis.net/def/crs/EPSG/0/3857',
      tileMatrixSetURI: TMS_URI,
    });
    const rels = Object.fromEntries(t.links.map((l: any) => [l.rel, l.href]));
    expect(rels.self).toBe(`${base()}/collections/${name}/tiles/WebMercatorQuad`);
    expect(rels['http://www.opengis.net/def/rel/ogc/1.0/tiling-scheme']).toBe(
      `${base()}/tileMatrixSets/WebMercatorQuad`,
    );
  });

  it('describes the tileset: templated MVT link with the version, fields, extent and limits', async () => {
    const r = await call('GET', `/api/ogc/collections/${name}/tiles/WebMercatorQuad`);
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('no-cache');
    const t = r.body;
    expect(t).toMatchObject({ dataType: 'vector', tileMatrixSetURI: TMS_URI });
    const item = t.links.find((l: any) => l.rel === 'item');
    expect(item).toMatchObject({ type: MVT, templated: true });
    const [{ version }] = await versionOf(name);
    expect(item.href).toBe(
      `${base()}/collections/${name}/tiles/WebMercatorQuad/{tileMatrix}/{tileRow}/{tileCol}?v=${version}`,
    );
    expect(
      t.links.find((l: any) => l.rel === 'http://www.opengis.net/def/rel/ogc/1.0/tiling-scheme').href,
    ).toBe(`${base()}/tileMatrixSets/WebMercatorQuad`);
    expect(t.layers).toEqual([
      expect.objectContaining({
        id: name,
        dataType: 'vector',
        propertiesSchema: {
          type: 'object',
          properties: {
            b: { type: 'boolean' },
            n: { type: 'number' },
            o: { type: 'string' },
            s: { type: 'string' },
          },
        },
      }),
    ]);
    expect(t.boundingBox).toEqual({
      lowerLeft: [-10.5, -5.5],
      upperRight: [30, 60],
      crs: 'http://www.opengis.net/def/crs/OGC/1.3/CRS84',
    });
    // Limits: every tile holding a point lies inside them, at every zoom.
    expect(t.tileMatrixSetLimits).toHaveLength(25);
    for (const l of t.tileMatrixSetLimits) {
      const z = Number(l.tileMatrix);
      for (const p of points) {
        const { row, col } = tileOf(p.c, z);
        expect(row).toBeGreaterThanOrEqual(l.minTileRow);
        expect(row).toBeLessThanOrEqual(l.maxTileRow);
        expect(col).toBeGreaterThanOrEqual(l.minTileCol);
        expect(col).toBeLessThanOrEqual(l.maxTileCol);
      }
    }
    // ... and they are tight: at z10 the box spans from the westmost to the eastmost point's tile.
    const z10 = t.tileMatrixSetLimits[10];
    expect(z10.minTileCol).toBe(tileOf([-10.5, 0], 10).col);
    expect(z10.maxTileCol).toBe(tileOf([30, 0], 10).col);
    expect(z10.minTileRow).toBe(tileOf([0, 60], 10).row);
    expect(z10.maxTileRow).toBe(tileOf([0, -5.5], 10).row);
  });

  it('404 for an unknown collection or tile matrix set, 400 for a bad name', async () => {
    expect((await call('GET', `/api/ogc/collections/${uniqueName('none')}/tiles`)).status).toBe(404);
    expect((await call('GET', `/api/ogc/collections/${name}/tiles/WorldCRS84Quad`)).status).toBe(404);
    const bad = await call('GET', `/api/ogc/collections/${encodeURIComponent("a'b")}/tiles/WebMercatorQuad`);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('collectionId');
  });
});

describe('tiles', () => {
  it('serves the templated tile (z/row/col) as MVT with ETag, Cache-Control and 304', async () => {
    const template: string = tileset.links.find((l: any) => l.rel === 'item').href;
    const z = 4;
    const { row, col } = tileOf(points[0].c, z);
    const res = await fetch(expand(template, z, row, col));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(MVT);
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    const etag = res.headers.get('etag');
    expect(etag).toMatch(/^"[\w-]{32}"$/);
    const tile = decodeTile(Buffer.from(await res.arrayBuffer()));
    const expected = points
      .map((p, i) => ({ id: i + 1, ...tileOf(p.c, z) }))
      .filter((p) => p.row === row && p.col === col)
      .map((p) => p.id);
    expect(tile[name].features.map((f) => f.id)).toEqual(expected);
    expect(tile[name].features[0].properties).toEqual({ n: 1, s: 'a', b: true, o: '{"k": 1}' });

    const again = await fetch(expand(template, z, row, col), { headers: { 'If-None-Match': etag! } });
    expect(again.status).toBe(304);
    expect(again.headers.get('etag')).toBe(etag);
    expect(again.headers.get('cache-control')).toBe('public, max-age=300');
  });

  it('matches the tile of /api/geodatasets/get (x = tileCol, y = tileRow)', async () => {
    const z = 1;
    const { row, col } = tileOf(points[1].c, z);
    const ogc = await fetch(`${base()}/collections/${name}/tiles/WebMercatorQuad/${z}/${row}/${col}`);
    const mmgis = await fetch(`${apiUrl()}/api/geodatasets/get/${name}?type=mvt&z=${z}&x=${col}&y=${row}`);
    expect(ogc.status).toBe(200);
    expect(mmgis.status).toBe(200);
    expect(Buffer.from(await ogc.arrayBuffer()).equals(Buffer.from(await mmgis.arrayBuffer()))).toBe(true);
  });

  it('an empty tile inside the limits is 204 with ETag; outside the limits 404', async () => {
    const z = 10;
    const l = tileset.tileMatrixSetLimits[z];
    // Inside the limits, away from every point: the middle of the box at z10 holds none of them.
    const row = Math.floor((l.minTileRow + l.maxTileRow) / 2);
    const col = Math.floor((l.minTileCol + l.maxTileCol) / 2);
    expect(points.some((p) => tileOf(p.c, z).row === row && tileOf(p.c, z).col === col)).toBe(false);
    const empty = await fetch(`${base()}/collections/${name}/tiles/WebMercatorQuad/${z}/${row}/${col}`);
    expect(empty.status).toBe(204);
    expect(empty.headers.get('etag')).toMatch(/^"/);
    expect(empty.headers.get('cache-control')).toBe('public, max-age=300');
    const outside = await call(
      'GET',
      `/api/ogc/collections/${name}/tiles/WebMercatorQuad/${z}/${l.maxTileRow + 1}/${col}`,
    );
    expect(outside.status).toBe(404);
    expect(outside.body.message).toContain('limits');
  });

  it('400 naming tileMatrix, tileRow or tileCol; 404 for another tile matrix set or collection', async () => {
    const at = (p: string) => call('GET', `/api/ogc/collections/${name}/tiles/${p}`);
    const cases: [string, number, string][] = [
      ['WebMercatorQuad/25/0/0', 400, 'tileMatrix'],
      ['WebMercatorQuad/x/0/0', 400, 'tileMatrix'],
      ['WebMercatorQuad/2/4/0', 400, 'tileRow'],
      ['WebMercatorQuad/2/-1/0', 400, 'tileRow'],
      ['WebMercatorQuad/2/0/4', 400, 'tileCol'],
      ['WebMercatorQuad/2/0/1.5', 400, 'tileCol'],
      ['WorldCRS84Quad/0/0/0', 404, 'WorldCRS84Quad'],
    ];
    for (const [p, status, word] of cases) {
      const r = await at(p);
      expect(r.status, p).toBe(status);
      expect(r.body.status, p).toBe('failure');
      expect(r.body.message, p).toContain(word);
    }
    expect((await at('WebMercatorQuad/0/0/0?f=png')).status).toBe(400);
    const none = await call('GET', `/api/ogc/collections/${uniqueName('none')}/tiles/WebMercatorQuad/0/0/0`);
    expect(none.status).toBe(404);
  });

  it('a write changes the version in the template; the old URL still answers the new data', async () => {
    const before: string = tileset.links.find((l: any) => l.rel === 'item').href;
    const w = await call('POST', `/api/geodatasets/append/${name}`, {
      token: adminToken(),
      body: {
        type: 'FeatureCollection',
        features: [
          { type: 'Feature', geometry: { type: 'Point', coordinates: [-10, 21] }, properties: { n: 4 } },
        ],
      },
    });
    expect(w.status, w.text).toBe(200);
    const after = (await call('GET', `/api/ogc/collections/${name}/tiles/WebMercatorQuad`)).body;
    const template: string = after.links.find((l: any) => l.rel === 'item').href;
    expect(template).not.toBe(before);
    const z = 4;
    const { row, col } = tileOf(points[0].c, z);
    expect(tileOf([-10, 21], z)).toEqual({ row, col });
    for (const t of [template, before]) {
      const res = await fetch(expand(t, z, row, col));
      expect(res.status).toBe(200);
      expect(decodeTile(Buffer.from(await res.arrayBuffer()))[name].features.map((f) => f.id)).toEqual([
        1, 4,
      ]);
    }
  });
});

describe('access', () => {
  it('under AUTH=local, tiles and tilesets need a login as /api/geodatasets/get does; tile matrix sets do not', async () => {
    const local = apiUrlLocal();
    for (const p of [
      `/api/ogc/collections/${name}/tiles`,
      `/api/ogc/collections/${name}/tiles/WebMercatorQuad`,
      `/api/ogc/collections/${name}/tiles/WebMercatorQuad/0/0/0`,
      `/api/geodatasets/get/${name}?type=mvt&z=0&x=0&y=0`,
    ]) {
      expect((await call('GET', p, { base: local })).status, p).toBe(401);
      expect((await call('GET', p, { base: local, token: adminToken() })).status, p).toBe(200);
    }
    expect((await call('GET', '/api/ogc/tileMatrixSets/WebMercatorQuad', { base: local })).status).toBe(200);
  });
});

async function versionOf(n: string): Promise<{ version: number }[]> {
  const { getDb } = await import('#lib/db/index.ts');
  return (await getDb().sql`select version::int as version from geodatasets where name = ${n}`) as any;
}
