import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin } from '../fixtures/uploads.ts';
import { type ApiResponse, apiUrl, call, uniqueName } from '../helpers.ts';

/**
 * The checks of the official OGC API – Tiles 1.0 test suite (`opengeospatial/ets-ogcapi-tiles10`) made
 * against this service over the standard's countries and places (tests/fixtures/cql2-ats/README.md). One
 * `it` per test method of the suite, named after it, in a `describe` per test class; each sends what the
 * method sends and asserts what it asserts. The suite's inputs (a tile matrix set URI, a tile URL template
 * and a range of tiles) are those a tester would give for the countries' vector tiles: WebMercatorQuad,
 * the tileset's `item` template, tile matrix 1, rows and columns 0–1 (all four tiles hold land).
 * docs/ogc-tiles.md ("Conformance") lists the results.
 */

const HERE = new URL('../fixtures/cql2-ats/', import.meta.url);
const JSON_TYPE = 'application/json';
const OPEN_API_MIME_TYPE = 'application/vnd.oai.openapi+json;version=3.0';
const TILES = 'http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/';
const REL_TILESETS = 'http://www.opengis.net/def/rel/ogc/1.0/tilesets-';
const WEB_MERCATOR_QUAD = 'http://www.opengis.net/def/tilematrixset/OGC/1.0/WebMercatorQuad';
/** Part of the suite's tilematrixsetdefinitions.csv: registered id, URI. */
const REGISTERED_TMS: [string, string][] = [
  ['WebMercatorQuad', WEB_MERCATOR_QUAD],
  ['WorldCRS84Quad', 'http://www.opengis.net/def/tilematrixset/OGC/1.0/WorldCRS84Quad'],
  ['WorldMercatorWGS84Quad', 'http://www.opengis.net/def/tilematrixset/OGC/1.0/WorldMercatorWGS84Quad'],
];
/** The suite's inputs. */
const INPUT = { tileMatrix: 1, minTileRow: 0, maxTileRow: 1, minTileCol: 0, maxTileCol: 1 };

const countries = uniqueName('ets_tiles_countries');
const places = uniqueName('ets_tiles_places');
const root = () => `${apiUrl()}/api/ogc`;

type Json = Record<string, any>;

/** GET an absolute URL of the service (the suite's RestAssured or HttpURLConnection), OpenAPI-checked. */
function get(url: string, accept = JSON_TYPE): Promise<ApiResponse> {
  expect(url.startsWith(apiUrl()), url).toBe(true);
  return call('GET', url.slice(apiUrl().length), { headers: { accept } });
}

/** The status of a tile request as the suite sends it (HttpURLConnection: no Accept of its own). */
async function status(url: string): Promise<number> {
  const r = await fetch(url);
  await r.arrayBuffer();
  return r.status;
}

/** The suite's CommonFixture.formatLinkURI: an href holding scheme://host as is, else host + href. */
function formatLinkURI(href: string): string {
  const u = new URL(root());
  return href.includes(`${u.protocol}//${u.hostname}`) ? href : `${u.protocol}//${u.hostname}${href}`;
}

const expand = (template: string, z: number | string, row: number | string, col: number | string) =>
  template
    .replace('{tileMatrix}', String(z))
    .replace('{tileRow}', String(row))
    .replace('{tileCol}', String(col));

let landing: Json;
let conformsTo: string[];
let api: Json;
/** Our collections as `/collections` lists them (the suite walks them all: here, ours). */
let collections: Json[];
/** The suite's `urltemplatefortiles` input: the countries tileset's `item` template. */
let urlTemplate: string;

beforeAll(async () => {
  for (const [name, layer] of [
    [countries, 'ne_110m_admin_0_countries'],
    [places, 'ne_110m_populated_places_simple'],
  ] as const) {
    const geojson = JSON.parse(gunzipSync(readFileSync(new URL(`${layer}.geojson.gz`, HERE))).toString());
    const r = await call('POST', '/api/geodatasets/recreate', { ...admin(), body: { name, geojson } });
    expect(r.status, r.text).toBe(200);
  }
  landing = (await get(root())).body;
  conformsTo = (await get(`${root()}/conformance`)).body.conformsTo;
  api = (await get(`${root()}/api`, OPEN_API_MIME_TYPE)).body;
  collections = (await get(`${root()}/collections`)).body.collections.filter(
    (c: Json) => c.id === countries || c.id === places,
  );
  const tileset = (await get(`${root()}/collections/${countries}/tiles/WebMercatorQuad`)).body;
  urlTemplate = tileset.links.find((l: Json) => l.rel === 'item').href;
}, 120_000);

afterAll(async () => {
  for (const name of [countries, places])
    await call('DELETE', `/api/geodatasets/remove/${name}`, { ...admin() });
});

const tilesetsLinks = (links: Json[]) => links.filter((l) => String(l.rel).startsWith(REL_TILESETS));

describe('the declared classes', () => {
  it('are classes this suite checks (and passes), or tileset and mvt, which it reads only through core', () => {
    const tiles = conformsTo.filter((c) => c.startsWith(TILES)).map((c) => c.slice(TILES.length));
    // The suite's own classes (RequirementClass.java) but dataset-tilesets, which is not declared, and the
    // two its core tests read (a tileset's links and limits, a tile): tests/api/ogc-tiles.test.ts checks them.
    expect(tiles.sort()).toEqual(['core', 'geodata-tilesets', 'mvt', 'tileset', 'tilesets-list']);
  });
});

describe('MandatoryCore', () => {
  /** The suite's check of its inputs: a registered tile matrix set, named (or `{tileMatrixSetId}`) in the template. */
  function expectInputs() {
    const registered = REGISTERED_TMS.find(
      ([, uri]) => uri.toLowerCase() === WEB_MERCATOR_QUAD.toLowerCase(),
    );
    expect(registered, 'a registered tile matrix set definition').toBeDefined();
    expect(
      urlTemplate.includes(`/tiles/${registered![0]}`) || urlTemplate.includes('/tiles/{tileMatrixSetId}'),
    ).toBe(true);
  }

  it('verifyMinimalConformance', () => {
    expectInputs();
  });

  it('validateSuccessfulTilesExecution', async () => {
    expectInputs();
    for (let r = INPUT.minTileRow; r <= INPUT.maxTileRow; r++) {
      for (let c = INPUT.minTileCol; c <= INPUT.maxTileCol; c++) {
        const url = expand(urlTemplate, INPUT.tileMatrix, r, c);
        expect(await status(url), url).toBe(200);
      }
    }
  });

  it('verifyErrorResponses', async () => {
    const max = 2147483647; // Integer.MAX_VALUE
    expect([400, 404]).toContain(await status(expand(urlTemplate, INPUT.tileMatrix, max, max)));
  });
});

describe('Conformance', () => {
  it('validateConformanceOperationAndResponse', async () => {
    const r = await get(`${root()}/conformance`);
    expect(r.status).toBe(200);
    for (const c of r.body.conformsTo) expect(typeof c).toBe('string');
    expect(r.body.conformsTo).toContain(`${TILES}core`);
  });
});

/**
 * Tile.processTilesResponse over a tileset list: for each tileset its first tileMatrixSetLimits entry,
 * then each templated link: the tile (that matrix, the limits' max row, min column) is 200 or 204, or one
 * row past the limits is 400 or 404.
 */
async function processTilesResponse(
  url: string,
  testURL: boolean,
  checkErrorResponse: boolean,
): Promise<string> {
  const errors: string[] = [];
  let foundTemplates = false;
  const r = await get(url);
  expect(r.status).toBe(200);
  for (const tileset of r.body.tilesets) {
    expect(tileset.tileMatrixSetId).toBeDefined();
    const limits = tileset.tileMatrixSetLimits[0];
    for (const link of tileset.links) {
      const href = String(link.href);
      if (!['{tileMatrix}', '{tileRow}', '{tileCol}'].every((t) => href.includes(t))) continue;
      if (testURL) {
        const row = checkErrorResponse ? Number(limits.maxTileRow) + 1 : limits.maxTileRow;
        const s = await status(expand(href, limits.tileMatrix, row, limits.minTileCol));
        const ok = checkErrorResponse ? [404, 400] : [200, 204];
        if (!ok.includes(s)) errors.push(`Expected status code ${ok.join(' or ')} but received ${s}.`);
      }
      foundTemplates = true;
    }
  }
  if (!foundTemplates) errors.push('No URL templates were found.');
  return errors.join(' ');
}

/** Tile.processNestedTilesResponse: the first collection's tilesets link, each tileset's self document has links. */
async function processNestedTilesResponse(): Promise<string> {
  let nestedTilesAreAvailable = false;
  let found = false;
  for (const c of collections) {
    for (const link of tilesetsLinks(c.links)) {
      if (found) continue;
      const list = await get(formatLinkURI(link.href));
      expect(list.status).toBe(200);
      for (const tileset of list.body.tilesets) {
        for (const l of tileset.links) {
          if (l.rel === 'self' && l.type === JSON_TYPE) {
            const inner = await get(formatLinkURI(l.href));
            expect(inner.status).toBe(200);
            if (inner.body.links.length > 0) nestedTilesAreAvailable = true;
          }
        }
      }
      found = true;
    }
  }
  return nestedTilesAreAvailable ? '' : 'No tiles resource found in collections';
}

/** Tile.findTemplateDefinition (landing-page tilesets) or findNestedTemplateDefinition (a collection's). */
async function findTemplateDefinition(template: string): Promise<boolean> {
  const landingLink = tilesetsLinks(landing.links)[0];
  if (landingLink) {
    const list = (await get(landingLink.href)).body;
    if (list.tilesets.some((t: Json) => t.links.some((l: Json) => String(l.href).includes(`{${template}}`))))
      return true;
  }
  let found = false;
  let foundTemplates = false;
  for (const c of collections) {
    for (const link of tilesetsLinks(c.links)) {
      if (found) continue;
      const list = (await get(formatLinkURI(link.href))).body;
      for (const tileset of list.tilesets) {
        for (const l of tileset.links) {
          if (l.rel !== 'self' || l.type !== JSON_TYPE) continue;
          const inner = (await get(formatLinkURI(l.href))).body;
          if (inner.links.some((x: Json) => String(x.href).includes(`{${template}}`))) foundTemplates = true;
        }
      }
      found = true;
    }
  }
  return foundTemplates;
}

describe('Tile', () => {
  it('validateTilesAreAvailable', async () => {
    let result = 'No tiles resource was found';
    for (const link of tilesetsLinks(landing.links))
      result = await processTilesResponse(link.href, false, false);
    if (result.includes('No tiles resource was found')) result = await processNestedTilesResponse();
    expect(result).toBe('');
  });

  it('validateSuccessfulTilesExecutionFollowingLinks', async () => {
    let result = '';
    for (const link of tilesetsLinks(landing.links))
      result = await processTilesResponse(link.href, true, false);
    expect(result).toBe('');
  });

  it('validateTilesErrorConditions', async () => {
    let result = '';
    for (const link of tilesetsLinks(landing.links))
      result = await processTilesResponse(link.href, true, true);
    expect(result).toBe('');
  });

  it('validateTileMatrixDefinitionIsAvailable', async () => {
    expect(await findTemplateDefinition('tileMatrix')).toBe(true);
  });

  it('validateTileRowDefinitionIsAvailable', async () => {
    expect(await findTemplateDefinition('tileRow')).toBe(true);
  });

  it('validateTileColDefinitionIsAvailable', async () => {
    expect(await findTemplateDefinition('tileCol')).toBe(true);
  });
});

describe('ApiDefinition', () => {
  it('apiDefinitionValidation', () => {
    const link = landing.links.find((l: Json) => l.rel === 'service-desc' && l.type === OPEN_API_MIME_TYPE);
    expect(link).toBeDefined();
    // The suite validates with KaiZen's OpenAPI 3.0 parser: the document's required structure.
    expect(api.openapi).toMatch(/^3\.0\.\d+$/);
    expect(typeof api.info.title).toBe('string');
    expect(typeof api.info.version).toBe('string');
    for (const [path, item] of Object.entries(api.paths as Json)) {
      for (const op of Object.values(item as Json)) {
        if (typeof op !== 'object' || !op.responses) continue;
        expect(Object.keys(op.responses).length, path).toBeGreaterThan(0);
      }
    }
  });

  it('apiDefinitionOperationIdValidation', () => {
    const ids = Object.values(api.paths as Json)
      .map((item: Json) => item.get?.operationId)
      .filter((id): id is string => typeof id === 'string');
    expect(ids.some((id) => id.includes('.getTile'))).toBe(true);
  });
});

describe('TilesetLlinks', () => {
  it('validateTilesetsListResponse', async () => {
    expect(conformsTo).toContain(`${TILES}tilesets-list`); // else the suite skips
    const errors: string[] = [];
    const hasSubset = async (href: string) => {
      const r = await get(formatLinkURI(href));
      expect(r.status).toBe(200);
      return r.body.tilesets.every((t: Json) => 'tileMatrixSetURI' in t);
    };
    for (const link of tilesetsLinks(landing.links)) {
      if (link.href.includes('f=json') && !(await hasSubset(link.href)))
        errors.push('One of the tilesets did not have the minimum required subset of metadata');
      if (!link.href.includes('/tiles')) errors.push(`'/tiles' path not found at ${link.href}`);
    }
    if (conformsTo.includes(`${TILES}geodata-tilesets`)) {
      let checked = 0;
      for (const c of collections.slice(0, 2)) {
        for (const link of tilesetsLinks(c.links)) {
          if (link.href.includes('f=json')) {
            if (!(await hasSubset(link.href))) errors.push(`${c.title}: no minimum subset of metadata`);
            checked++;
          }
          if (!link.href.includes('/tiles')) errors.push(`'/tiles' link relation not found in ${c.title}`);
        }
      }
      expect(checked).toBeGreaterThanOrEqual(0);
    }
    expect(errors).toEqual([]);
  });
});

describe('LandingPage (dataset tilesets)', () => {
  it('landingPageRetrieval', () => {
    // The suite skips this test unless dataset-tilesets is declared; it is not (docs/ogc-tiles.md).
    if (!conformsTo.includes(`${TILES}dataset-tilesets`)) return;
    expect(tilesetsLinks(landing.links).length).toBeGreaterThan(0);
  });
});

describe('GeospatialDataResource', () => {
  it('geospatialResourceTilesetsLinksCheck', async () => {
    expect(conformsTo).toContain(`${TILES}geodata-tilesets`); // else the suite skips
    let found = false;
    for (const c of collections) {
      for (const link of tilesetsLinks(c.links)) {
        if (found) continue;
        const r = await get(formatLinkURI(link.href));
        expect(r.status).toBe(200);
        expect(Array.isArray(r.body.tilesets)).toBe(true);
        found = true;
      }
    }
    expect(found, 'tilesets links in the geospatial data resources').toBe(true);
  });

  it('geospatialResourceTilesetsRetrieval', async () => {
    let found = false;
    for (const c of collections) {
      for (const link of tilesetsLinks(c.links)) {
        if (found || !(link.href.endsWith('/tiles') || link.href.includes('/tiles?'))) continue;
        const r = await get(formatLinkURI(link.href));
        expect(r.status).toBe(200);
        expect(Array.isArray(r.body.tilesets)).toBe(true);
        found = true;
      }
    }
    expect(found, "a tilesets link whose href ends with '/tiles'").toBe(true);
  });
});
