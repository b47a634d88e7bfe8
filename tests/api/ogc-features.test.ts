import { beforeAll, describe, expect, it } from 'vitest';
import { admin } from '../fixtures/uploads.ts';
import { type ApiResponse, adminToken, apiUrl, apiUrlLocal, call, uniqueName } from '../helpers.ts';

/**
 * OGC API – Features (docs/ogc.md) over HTTP: the landing page, conformance, the OpenAPI 3.0 definition,
 * collections with their catalog extents, items (limit, bbox and bbox-crs, datetime, property filters,
 * crs, keyset paging under concurrent appends), one feature, the HTML pages and the /API spelling.
 * The GDAL client tests are in tests/api/ogc-gdal.test.ts.
 */

const CORE = 'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core';
const CRS84 = 'http://www.opengis.net/def/crs/OGC/1.3/CRS84';
const EPSG4326 = 'http://www.opengis.net/def/crs/EPSG/0/4326';
const EPSG3857 = 'http://www.opengis.net/def/crs/EPSG/0/3857';

const name = uniqueName('ogc_small');

/** Ten points on a line at lon = i, lat = i/2, one a day from 2024-01-01, kind a/b alternating. */
function smallFeatures(from = 0, n = 10) {
  return Array.from({ length: n }, (_, k) => {
    const i = from + k;
    return {
      type: 'Feature',
      geometry: { type: 'Point', coordinates: [i, i / 2] },
      properties: {
        i,
        kind: i % 2 === 0 ? 'a' : 'b',
        label: `p ${i}`,
        t: new Date(Date.UTC(2024, 0, 1 + i)).toISOString(),
      },
    };
  });
}

async function get(path: string, headers: Record<string, string> = {}) {
  return call('GET', path, { headers });
}

const items = (q = '') => get(`/api/ogc/collections/${name}/items${q}`);

beforeAll(async () => {
  const r = await call('POST', '/api/geodatasets/recreate', {
    ...admin(),
    body: { name, startProp: 't', geojson: { type: 'FeatureCollection', features: smallFeatures() } },
  });
  expect(r.status).toBe(200);
});

describe('landing page, conformance, API definition', () => {
  it('links the API definition, conformance and the collections', async () => {
    const r = await get('/api/ogc');
    expect(r.status).toBe(200);
    const rels = Object.fromEntries(r.body.links.map((l: any) => [`${l.rel} ${l.type}`, l.href]));
    expect(rels['service-desc application/vnd.oai.openapi+json;version=3.0']).toBe(`${apiUrl()}/api/ogc/api`);
    expect(rels['conformance application/json']).toBe(`${apiUrl()}/api/ogc/conformance`);
    expect(rels['data application/json']).toBe(`${apiUrl()}/api/ogc/collections`);
    expect(rels['http://www.opengis.net/def/rel/ogc/1.0/functions application/json']).toBe(
      `${apiUrl()}/api/ogc/functions`,
    );
    const api = await get('/api/ogc/api');
    expect(Object.keys(api.body.paths)).toContain('/functions');
    expect(rels['alternate text/html']).toBe(`${apiUrl()}/api/ogc?f=html`);
  });

  it('declares core, geojson, html, oas30 and Part 2 crs', async () => {
    const r = await get('/api/ogc/conformance');
    expect(r.body.conformsTo).toEqual(
      expect.arrayContaining([
        CORE,
        'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/geojson',
        'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/html',
        'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/oas30',
        'http://www.opengis.net/spec/ogcapi-features-2/1.0/conf/crs',
      ]),
    );
  });

  it('serves OpenAPI 3.0 generated from the endpoint declarations, with each collection’s queryables', async () => {
    const res = await fetch(`${apiUrl()}/api/ogc/api`);
    expect(res.headers.get('content-type')).toMatch(/^application\/vnd\.oai\.openapi\+json;\s*version=3\.0/);
    const doc = (await res.json()) as any;
    expect(doc.openapi).toBe('3.0.3');
    expect(doc.servers).toEqual([{ url: `${apiUrl()}/api/ogc` }]);
    const text = JSON.stringify(doc);
    // No 3.1-only spelling survives: type arrays, const, examples arrays, numeric exclusive bounds.
    expect(text).not.toMatch(/"type":\[/);
    expect(text).not.toMatch(/"const":/);
    expect(text).not.toMatch(/"examples":\[/);
    expect(text).not.toMatch(/"exclusiveM(in|ax)imum":-?\d/);
    expect(doc.jsonSchemaDialect).toBeUndefined();
    for (const p of ['/', '/conformance', '/api', '/collections', '/collections/{collectionId}']) {
      expect(doc.paths[p]?.get, p).toBeDefined();
    }
    const generic = doc.paths['/collections/{collectionId}/items'].get;
    const limit = generic.parameters.find((p: any) => p.name === 'limit');
    expect(limit.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 10000, default: 10 });
    const own = doc.paths[`/collections/${name}/items`].get.parameters.map(
      (p: any) => `${p.name}:${p.schema.type}`,
    );
    expect(own).toEqual(
      expect.arrayContaining(['i:number', 'kind:string', 'label:string', 't:string', 'bbox:array']),
    );
    // The nullable geometry of a feature: 3.0's nullable instead of a type array.
    const feature = generic.responses['200'].content['application/geo+json'].schema.properties.features.items;
    expect(feature.properties.geometry).toEqual({ type: 'object', nullable: true });
  });
});

describe('collections', () => {
  it('lists the collection with its extent and CRS list from the catalog', async () => {
    const r = await get('/api/ogc/collections');
    expect(r.status).toBe(200);
    const c = r.body.collections.find((x: any) => x.id === name);
    expect(c.extent.spatial.bbox).toEqual([[0, 0, 9, 4.5]]);
    expect(c.extent.spatial.crs).toBe(CRS84);
    expect(c.extent.temporal.interval).toEqual([['2024-01-01T00:00:00.000Z', '2024-01-10T00:00:00.000Z']]);
    expect(c.crs).toEqual([CRS84, EPSG4326, EPSG3857]);
    expect(c.storageCrs).toBe(CRS84);
    expect(c.links).toContainEqual(
      expect.objectContaining({
        rel: 'items',
        type: 'application/geo+json',
        href: `${apiUrl()}/api/ogc/collections/${name}/items`,
      }),
    );
    const one = await get(`/api/ogc/collections/${name}`);
    expect(one.body).toEqual(c);
    expect((await get('/api/ogc/collections/no_such_collection')).status).toBe(404);
  });

  it('widens the extent on append, without rescanning on read', async () => {
    const other = uniqueName('ogc_ext');
    const body = (features: unknown[]) => ({
      name: other,
      startProp: 't',
      geojson: { type: 'FeatureCollection', features },
    });
    await call('POST', '/api/geodatasets/recreate', { ...admin(), body: body(smallFeatures(0, 2)) });
    await call('POST', '/api/geodatasets/recreate', {
      ...admin(),
      body: { ...body(smallFeatures(20, 1)), action: 'append' },
    });
    const c = (await get(`/api/ogc/collections/${other}`)).body;
    expect(c.extent.spatial.bbox).toEqual([[0, 0, 20, 10]]);
    expect(c.extent.temporal.interval).toEqual([['2024-01-01T00:00:00.000Z', '2024-01-21T00:00:00.000Z']]);
    await call('DELETE', `/api/geodatasets/remove/${other}`, admin());
  });

  it('under AUTH=local, reads need a user or token, as /api/geodatasets/get', async () => {
    const anonymous = await fetch(`${apiUrlLocal()}/api/ogc/collections`);
    expect(anonymous.status).toBe(401);
    const items401 = await fetch(`${apiUrlLocal()}/api/ogc/collections/${name}/items`);
    expect(items401.status).toBe(401);
    const withToken = await fetch(`${apiUrlLocal()}/api/ogc/collections`, {
      headers: { authorization: `Bearer ${adminToken()}` },
    });
    expect(withToken.status).toBe(200);
    const body = (await withToken.json()) as any;
    expect(body.collections.map((c: any) => c.id)).toContain(name);
    // The landing page and conformance stay public.
    expect((await fetch(`${apiUrlLocal()}/api/ogc`)).status).toBe(200);
  });
});

describe('items', () => {
  it('answers GeoJSON built by the database, 10 by default, with counts, time stamp and links', async () => {
    const r = await items();
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/geo\+json/);
    expect(r.headers.get('content-crs')).toBe(`<${CRS84}>`);
    expect(r.body.type).toBe('FeatureCollection');
    expect(r.body.numberMatched).toBe(10);
    expect(r.body.numberReturned).toBe(10);
    expect(Math.abs(Date.parse(r.body.timeStamp) - Date.now())).toBeLessThan(60_000);
    expect(r.body.features[3]).toMatchObject({
      type: 'Feature',
      geometry: { type: 'Point', coordinates: [3, 1.5] },
      properties: { i: 3, kind: 'b', label: 'p 3' },
    });
    expect(r.body.features.map((f: any) => f.properties.i)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(r.body.links.map((l: any) => l.rel)).toEqual(['self', 'alternate', 'collection']);
  });

  it('reads limit from 1 (400 naming it below or not an integer), a limit above 10000 as 10000', async () => {
    for (const bad of ['0', 'x', '1.5']) {
      const r = await items(`?limit=${bad}`);
      expect(r.status, bad).toBe(400);
      expect(r.body.message).toMatch(/limit/);
    }
    expect((await items('?limit=10000')).status).toBe(200);
    // Part 1 1.0.1 /req/core/fc-limit-response-1 C: not an error, the maximum is used.
    const r = await items('?limit=20000');
    expect(r.status).toBe(200);
    expect(r.body.numberReturned).toBe(10);
  });

  it('filters by bbox in CRS84, EPSG:4326 (lat,lon) and EPSG:3857', async () => {
    const ids = async (q: string) => {
      const r = await items(q);
      expect(r.status, q).toBe(200);
      return r.body.features.map((f: any) => f.properties.i);
    };
    expect(await ids('?bbox=1.5,0,4.5,10')).toEqual([2, 3, 4]);
    expect(await ids('?bbox=1.5,0,-5,4.5,10,100')).toEqual([2, 3, 4]);
    // lat first: latitudes 0..1.6 → i ≤ 3; longitudes 1.5..4.5 → i in 2..4.
    expect(await ids(`?bbox=0,1.5,1.6,4.5&bbox-crs=${encodeURIComponent(EPSG4326)}`)).toEqual([2, 3]);
    // Web Mercator metres around lon 5..7.
    const x = (lon: number) => (lon * Math.PI * 6378137) / 180;
    expect(await ids(`?bbox=${x(4.5)},0,${x(7.5)},2000000&bbox-crs=${encodeURIComponent(EPSG3857)}`)).toEqual(
      [5, 6, 7],
    );
    // West east of east: the box across the antimeridian (Part 1, 7.15.3): 5..180 and -180..1.
    expect(await ids('?bbox=5,0,1,10')).toEqual([0, 1, 5, 6, 7, 8, 9]);
    for (const bad of ['1,2,3', '1,2,3,x', '1,5,2,1']) {
      const r = await items(`?bbox=${bad}`);
      expect(r.status, bad).toBe(400);
      expect(r.body.message).toMatch(/bbox/);
    }
    expect((await items('?bbox=0,0,1,1&bbox-crs=EPSG:9999')).status).toBe(400);
  });

  it('filters by datetime: instant, closed and open intervals', async () => {
    const ids = async (dt: string) => {
      const r = await items(`?datetime=${encodeURIComponent(dt)}`);
      expect(r.status, dt).toBe(200);
      return r.body.features.map((f: any) => f.properties.i);
    };
    expect(await ids('2024-01-03T00:00:00Z')).toEqual([2]);
    expect(await ids('2024-01-03')).toEqual([2]);
    expect(await ids('2024-01-02T12:00:00Z/2024-01-04T00:00:00Z')).toEqual([2, 3]);
    expect(await ids('../2024-01-02T00:00:00Z')).toEqual([0, 1]);
    expect(await ids('2024-01-09T00:00:00Z/..')).toEqual([8, 9]);
    expect(await ids('2024-01-09T00:00:00Z/')).toEqual([8, 9]);
    // A start and an ISO 8601 duration, or a duration and an end.
    expect(await ids('2024-01-03/P1D')).toEqual([2, 3]);
    expect(await ids('PT36H/2024-01-03T00:00:00Z')).toEqual([1, 2]);
    for (const bad of [
      'yesterday',
      '2024-02-30',
      '2024-01-05/2024-01-01',
      'a/b/c',
      '../P1D',
      'P1D/P2D',
      '2024-01-01/P',
    ]) {
      const r = await items(`?datetime=${encodeURIComponent(bad)}`);
      expect(r.status, bad).toBe(400);
      expect(r.body.message).toMatch(/datetime/);
    }
  });

  it('keeps the features with no time under any datetime (Part 1, /req/core/fc-time-response C)', async () => {
    const mixed = uniqueName('ogc_untimed');
    const feature = (t: string | null, n: number) => ({
      type: 'Feature',
      geometry: { type: 'Point', coordinates: [n, 0] },
      properties: { n, t },
    });
    const features = [feature('2024-01-01T00:00:00Z', 1), feature(null, 2), feature('not a time', 3)];
    const r = await call('POST', '/api/geodatasets/recreate', {
      ...admin(),
      body: { name: mixed, startProp: 't', geojson: { type: 'FeatureCollection', features } },
    });
    expect(r.status, r.text).toBe(200);
    const ns = async (dt: string) =>
      (await get(`/api/ogc/collections/${mixed}/items?datetime=${encodeURIComponent(dt)}`)).body.features.map(
        (f: any) => f.properties.n,
      );
    expect(await ns('2024-01-01')).toEqual([1, 2, 3]);
    expect(await ns('2018-02-12T23:20:52Z')).toEqual([2, 3]);
    expect(await ns('../2023-12-31')).toEqual([2, 3]);
    await call('DELETE', `/api/geodatasets/remove/${mixed}`, { ...admin() });
  });

  it('filters by queryable properties, and refuses unknown parameters', async () => {
    const r = await items('?kind=a&limit=3');
    expect(r.body.numberMatched).toBe(5);
    expect(r.body.features.map((f: any) => f.properties.i)).toEqual([0, 2, 4]);
    expect((await items('?i=7')).body.features.map((f: any) => f.properties.i)).toEqual([7]);
    expect((await items('?label=p%205&kind=b')).body.features.map((f: any) => f.properties.i)).toEqual([5]);
    const nan = await items('?i=seven');
    expect(nan.status).toBe(400);
    expect(nan.body.message).toMatch(/'i'/);
    const unknown = await items('?colour=red');
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toMatch(/colour/);
    // jQuery's cache-buster is not a filter.
    expect((await items('?_=123')).status).toBe(200);
  });

  it('answers coordinates in the requested crs, with Content-Crs', async () => {
    const lat = await items(`?crs=${encodeURIComponent(EPSG4326)}&i=4`);
    expect(lat.headers.get('content-crs')).toBe(`<${EPSG4326}>`);
    expect(lat.body.features[0].geometry.coordinates).toEqual([2, 4]);
    const merc = await items(`?crs=${encodeURIComponent(EPSG3857)}&i=4`);
    expect(merc.headers.get('content-crs')).toBe(`<${EPSG3857}>`);
    const [x, y] = merc.body.features[0].geometry.coordinates;
    expect(x).toBeCloseTo((4 * Math.PI * 6378137) / 180, 2);
    expect(y).toBeCloseTo(6378137 * Math.log(Math.tan(Math.PI / 4 + (2 * Math.PI) / 360)), 2);
    const bad = await items('?crs=EPSG:1234');
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/crs/);
  });

  it('pages with next and prev links (keyset on the id), unaffected by concurrent appends', async () => {
    const pagedName = uniqueName('ogc_paged');
    const body = (features: unknown[]) => ({
      name: pagedName,
      geojson: { type: 'FeatureCollection', features },
    });
    await call('POST', '/api/geodatasets/recreate', { ...admin(), body: body(smallFeatures(0, 25)) });
    const seen: number[] = [];
    const pages: any[] = [];
    let url: string | undefined = `${apiUrl()}/api/ogc/collections/${pagedName}/items?limit=7`;
    let appended = false;
    while (url) {
      const r: ApiResponse = await call('GET', url.slice(apiUrl().length));
      expect(r.status).toBe(200);
      pages.push(r.body);
      seen.push(...r.body.features.map((f: any) => f.properties.i));
      if (!appended) {
        // Features appended while a client pages: earlier pages do not shift, the new ones come last.
        const a = await call('POST', '/api/geodatasets/recreate', {
          ...admin(),
          body: { ...body(smallFeatures(100, 3)), action: 'append' },
        });
        expect(a.status).toBe(200);
        appended = true;
      }
      url = r.body.links.find((l: any) => l.rel === 'next')?.href;
    }
    expect(seen).toEqual([...Array.from({ length: 25 }, (_, i) => i), 100, 101, 102]);
    expect(pages.map((p) => p.numberReturned)).toEqual([7, 7, 7, 7]);
    expect(pages[0].links.some((l: any) => l.rel === 'prev')).toBe(false);
    // prev from the third page gives the second page again.
    const prev = pages[2].links.find((l: any) => l.rel === 'prev').href;
    const back = await call('GET', prev.slice(apiUrl().length));
    expect(back.body.features.map((f: any) => f.properties.i)).toEqual(
      pages[1].features.map((f: any) => f.properties.i),
    );
    expect(back.body.links.find((l: any) => l.rel === 'next')).toBeDefined();
    expect((await items('?after=1&before=5')).status).toBe(400);
    await call('DELETE', `/api/geodatasets/remove/${pagedName}`, admin());
  });

  it('answers one feature by id, 404 for an unknown one', async () => {
    const page = await items('?i=6');
    const id = page.body.features[0].id;
    expect(Number.isInteger(id)).toBe(true);
    const r = await get(`/api/ogc/collections/${name}/items/${id}`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/geo\+json/);
    expect(r.body).toMatchObject({ type: 'Feature', id, properties: { i: 6 } });
    expect(r.body.links.map((l: any) => l.rel)).toEqual(['self', 'alternate', 'collection']);
    const flipped = await get(`/api/ogc/collections/${name}/items/${id}?crs=${encodeURIComponent(EPSG4326)}`);
    expect(flipped.body.geometry.coordinates).toEqual([3, 6]);
    expect((await get(`/api/ogc/collections/${name}/items/999999`)).status).toBe(404);
    expect((await get(`/api/ogc/collections/${name}/items/abc`)).status).toBe(404);
    expect((await get(`/api/ogc/collections/${name}/items/${'9'.repeat(65)}`)).status).toBe(400);
  });

  it('answers under /API/ogc as under /api/ogc', async () => {
    const r = await fetch(`${apiUrl()}/API/ogc/collections/${name}/items?limit=2`);
    expect(r.status).toBe(200);
    const body = (await r.json()) as any;
    expect(body.numberReturned).toBe(2);
    // Links keep the caller's spelling.
    expect(body.links[0].href.startsWith(`${apiUrl()}/API/ogc/`)).toBe(true);
  });
});

describe('HTML', () => {
  const html = async (path: string, headers: Record<string, string> = {}) => {
    const r = await fetch(`${apiUrl()}${path}`, { headers });
    expect(r.status, path).toBe(200);
    expect(r.headers.get('content-type'), path).toMatch(/^text\/html/);
    return r.text();
  };

  it('serves a plain page per resource by f=html or a browser’s Accept, with accessible structure', async () => {
    const browser = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
    const pages = [
      await html('/api/ogc', browser),
      await html('/api/ogc/conformance?f=html'),
      await html('/api/ogc/api?f=html'),
      await html('/api/ogc/collections', browser),
      await html(`/api/ogc/collections/${name}?f=html`),
      await html(`/api/ogc/collections/${name}/items?f=html&limit=3`),
    ];
    for (const p of pages) {
      expect(p).toMatch(/^<!doctype html>\n<html lang="en">/);
      expect(p).toMatch(/<title>[^<]+<\/title>/);
      expect(p).toMatch(/<main>\n<h1>/);
      expect(p).toMatch(/<nav aria-label="Breadcrumb">/);
      expect(p).not.toMatch(/<script/i);
    }
    expect(pages[4]).toContain('<caption>Queryables');
    expect(pages[5]).toContain(`<caption>Features of ${name}</caption>`);
    expect(pages[5]).toContain('<th scope="col">kind</th>');
    expect(pages[5]).toMatch(/<a href="[^"]+after=\d+[^"]*f=html" rel="next">Next page<\/a>/);
    const id = (await items('?i=1')).body.features[0].id;
    const one = await html(`/api/ogc/collections/${name}/items/${id}`, browser);
    expect(one).toContain('<th scope="row">label</th><td>p 1</td>');
    // JSON still wins for a client that asks for it, and f beats Accept.
    expect(
      (await fetch(`${apiUrl()}/api/ogc?f=json`, { headers: browser })).headers.get('content-type'),
    ).toMatch(/json/);
    expect(
      (await fetch(`${apiUrl()}/api/ogc`, { headers: { accept: 'application/json' } })).headers.get(
        'content-type',
      ),
    ).toMatch(/json/);
    expect((await fetch(`${apiUrl()}/api/ogc?f=xml`)).status).toBe(400);
  });

  it('escapes property text', async () => {
    const evil = uniqueName('ogc_html');
    await call('POST', '/api/geodatasets/recreate', {
      ...admin(),
      body: {
        name: evil,
        geojson: {
          type: 'FeatureCollection',
          features: [
            {
              type: 'Feature',
              geometry: { type: 'Point', coordinates: [0, 0] },
              properties: { x: '<script>alert(1)</script>' },
            },
          ],
        },
      },
    });
    const page = await html(`/api/ogc/collections/${evil}/items?f=html`);
    expect(page).not.toContain('<script>');
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    await call('DELETE', `/api/geodatasets/remove/${evil}`, admin());
  });
});
