import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { OgcApiEndpoint } from '@camptocamp/ogc-client';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeTile } from '../fixtures/tiles.ts';
import { adminToken, apiUrl, call, uniqueName } from '../helpers.ts';

/**
 * Two real OGC API clients read the service (docs/ogc.md, docs/ogc-tiles.md): `@camptocamp/ogc-client`
 * (TypeScript) and OWSLib (Python, Debian's python3-owslib). Each discovers the API from its landing page,
 * lists the collections, reads items, and finds and fetches the vector tiles.
 */

const run = promisify(execFile);
const MVT = 'application/vnd.mapbox-vector-tile';
const name = uniqueName('ogcclients');
const points: { c: [number, number]; p: Record<string, unknown> }[] = [
  { c: [-10.5, 20.25], p: { n: 1, s: 'a' } },
  { c: [30, -5.5], p: { n: 2, s: 'b' } },
  { c: [12, 60], p: { n: 3, s: 'c' } },
];

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
});

describe('@camptocamp/ogc-client', () => {
  beforeAll(() => {
    // ogc-client resolves relative links against the page's location, which Node does not have.
    (globalThis as any).location ??= new URL(`${apiUrl()}/`);
  });

  it('discovers the endpoint, lists collections, reads items, finds the tileset and fetches a tile', async () => {
    const endpoint = new OgcApiEndpoint(`${apiUrl()}/api/ogc`);
    expect((await endpoint.info).title).toEqual(expect.any(String));
    const classes = await endpoint.conformanceClasses;
    expect(classes).toContain('http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core');
    expect(classes).toContain('http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/core');
    expect(await endpoint.featureCollections).toContain(name);
    expect(await endpoint.hasTiles).toBe(true);
    expect(await endpoint.tileMatrixSets).toEqual(['WebMercatorQuad']);
    expect(await endpoint.vectorTileCollections).toContain(name);

    const info = await endpoint.getCollectionInfo(name);
    expect(info.id).toBe(name);
    expect(info.vectorTileFormats).toEqual([MVT]);
    expect(info.supportedTileMatrixSets).toEqual(['WebMercatorQuad']);

    // ogc-client pages by `offset` (docs/ogc.md, "Items": accepted; the links page by key).
    const items = (await endpoint.getCollectionItems(name, 10)) as any[];
    expect(items.map((f) => f.properties.s).sort()).toEqual(['a', 'b', 'c']);
    const rest = (await endpoint.getCollectionItems(name, 10, 1)) as any[];
    expect(rest).toHaveLength(2);
    expect(items.find((f) => f.properties.s === 'b')?.geometry).toEqual({
      type: 'Point',
      coordinates: [30, -5.5],
    });

    const tilesetUrl = await endpoint.getVectorTilesetUrl(name, 'WebMercatorQuad');
    const tileset = (await (await fetch(tilesetUrl)).json()) as any;
    const template: string = tileset.links.find((l: any) => l.rel === 'item' && l.type === MVT).href;
    // z1: the western points in column 0, the others in column 1; row 0 is the northern half.
    const res = await fetch(
      template.replace('{tileMatrix}', '1').replace('{tileRow}', '0').replace('{tileCol}', '1'),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(MVT);
    const tile = decodeTile(Buffer.from(await res.arrayBuffer()));
    expect(tile[name].features.map((f) => f.properties.s)).toEqual(['c']);
  });
});

/** A python3 that can import owslib (PATH's first, then Debian's own), or undefined. */
async function owslibPython(): Promise<string | undefined> {
  for (const py of ['python3', '/usr/bin/python3']) {
    try {
      await run(py, ['-c', 'import owslib.ogcapi.features']);
      return py;
    } catch {
      // not this one
    }
  }
  return undefined;
}

const python = await owslibPython();

describe.skipIf(!python)('OWSLib', () => {
  it('lists collections, reads items and reaches the tiles', async () => {
    const script = fileURLToPath(new URL('../fixtures/owslib_client.py', import.meta.url));
    const { stdout } = await run(python!, [script, `${apiUrl()}/api/ogc`, name], { timeout: 60_000 });
    const out = JSON.parse(stdout);
    expect(out.landing_rels).toEqual(expect.arrayContaining(['conformance', 'data', 'service-desc']));
    expect(out.conformance).toContain('http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/core');
    expect(out.collections).toContain(name);
    expect(out.feature_collections).toContain(name);
    expect(out.collection).toBe(name);
    expect(out.items.type).toBe('FeatureCollection');
    expect(out.items.ids).toHaveLength(2);
    expect(out.items.next).toHaveLength(1);
    for (const p of out.items.properties) expect(['a', 'b', 'c']).toContain(p.s);
    expect(out.tilesets).toEqual(['http://www.opengis.net/def/tilematrixset/OGC/1.0/WebMercatorQuad']);
    expect(out.template).toMatch(
      /\/tiles\/WebMercatorQuad\/\{tileMatrix\}\/\{tileRow\}\/\{tileCol\}\?v=\d+$/,
    );
    expect(out.tile_bytes).toBeGreaterThan(0);
  });
});
