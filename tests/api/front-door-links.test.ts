import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { getDb } from '#lib/db/index.ts';
import { removeGeodataset } from '#lib/geodatasets/manage.ts';
import { recreateGeodataset } from '#lib/geodatasets/write/write.ts';
import {
  invokePackaged,
  type PackagedFunction,
  packagedFunctions,
  proxyEvent,
  type RouteRequest,
  runRoot,
} from '../fixtures/lambdaRun.ts';
import { DEFAULT_PACKAGE_ENV, packageService } from '../fixtures/packageService.ts';
import { points } from '../fixtures/uploads.ts';
import { uniqueName } from '../helpers.ts';

/**
 * The links of a front-door deployment (docs/deploying.md, "The front door"): behind CloudFront the
 * functions see API Gateway's own Host and the stage path, yet TileJSON `tiles`, OGC links and the paging
 * `next` link must name the public host, or MapLibre fetches tiles cross-origin without the session cookie
 * and past CloudFront. The packaged functions run as Lambda runs them (tests/fixtures/lambdaRun.ts) on the
 * test database, with the environment the template gives them.
 */

/** The stage cache on, as a production stage has it (both files share this one package). */
const PACKAGE_PARAMS = ['apiCache=true'];
const API_HOST = 'abc123.execute-api.us-east-1.amazonaws.com';
/** What API Gateway sends a function behind CloudFront: its own host, HTTPS. */
const GATEWAY_HEADERS = { Host: API_HOST, 'X-Forwarded-Proto': 'https', Accept: 'application/json' };
const db = getDb();
const name = uniqueName('front_door');
const out = mkdtempSync(join(tmpdir(), 'sls-front-door-'));
let root: string;
let functions: PackagedFunction[];
const databaseEnv = () => ({ DATABASE_URL: inject('databaseUrl'), DB_DRIVER: 'postgres', DB_POOL_MAX: '1' });

beforeAll(async () => {
  await recreateGeodataset(db, { type: 'FeatureCollection', features: points(3) }, { name });
  root = runRoot();
  functions = packagedFunctions(
    JSON.parse(await packageService(out, PACKAGE_PARAMS, DEFAULT_PACKAGE_ENV)),
    out,
  );
}, 900_000);

afterAll(async () => {
  rmSync(out, { recursive: true, force: true });
  if (root) rmSync(root, { recursive: true, force: true });
  // The catalog row, its table and its rank levels (lib/geodatasets/manage.ts).
  await removeGeodataset(db, name).catch(() => {});
});

const fn = (handler: string) => {
  const found = functions.find((f) => f.handler === `dist/functions/${handler}.handler`);
  if (!found) throw new Error(`no packaged function ${handler}`);
  return found;
};

/** One request through API Gateway's execute-api host (stage `prod`) to the packaged `handler`. */
async function viaGateway(handler: string, request: RouteRequest, env: Record<string, string> = {}) {
  const [answer] = await invokePackaged(
    fn(handler),
    root,
    [proxyEvent({ ...request, headers: { ...GATEWAY_HEADERS, ...request.headers } })],
    { ...databaseEnv(), ...env },
  );
  expect(answer.statusCode, answer.error ?? answer.body?.slice(0, 300)).toBe(200);
  return JSON.parse(answer.body as string);
}

/** Every `href` of an OGC answer. */
const hrefs = (body: any): string[] => (body.links as { href: string }[]).map((l) => l.href);

describe('behind the front door, links name the public host (PUBLIC_URL), not the execute-api host', () => {
  it('gives every function PUBLIC_URL = https://<distribution domain>', () => {
    for (const f of functions)
      expect(f.environment.PUBLIC_URL, f.id).toBe('https://d111111abcdef8.cloudfront.net');
  });

  it('TileJSON: the tiles URL', async () => {
    const publicUrl = fn('geodatasets/tilejson').environment.PUBLIC_URL;
    const body = await viaGateway('geodatasets/tilejson', {
      resource: '/api/geodatasets/tilejson/{name}',
      pathParameters: { name },
    });
    expect(body.tiles).toHaveLength(1);
    expect(body.tiles[0].startsWith(`${publicUrl}/api/geodatasets/get/${name}?`), body.tiles[0]).toBe(true);
  });

  it('OGC API: the landing page and the items page (self, next, collection)', async () => {
    const publicUrl = fn('ogc/landing').environment.PUBLIC_URL;
    const landing = await viaGateway('ogc/landing', { resource: '/api/ogc' });
    expect(hrefs(landing).length).toBeGreaterThan(3);
    for (const href of hrefs(landing)) expect(href.startsWith(`${publicUrl}/api/ogc`), href).toBe(true);

    const items = await viaGateway('ogc/items', {
      resource: '/api/ogc/collections/{collectionId}/items',
      pathParameters: { collectionId: name },
      query: { limit: '1' },
    });
    expect(hrefs(items).map((h) => h.split('?')[0])).toContain(
      `${publicUrl}/api/ogc/collections/${name}/items`,
    );
    expect(items.links.some((l: any) => l.rel === 'next')).toBe(true);
    for (const href of hrefs(items)) expect(href.startsWith(`${publicUrl}/api/ogc/`), href).toBe(true);
  });

  it('GeoJSON paging: the next link', async () => {
    const publicUrl = fn('geodatasets/get').environment.PUBLIC_URL;
    const page = await viaGateway('geodatasets/get', {
      resource: '/api/geodatasets/get/{layer}',
      pathParameters: { layer: name },
      // Paging by key (`after`): the page ends with its `links` (docs/geodatasets-read.md, "Paging").
      query: { limit: '1', after: '0' },
    });
    const next = page.links.find((l: any) => l.rel === 'next').href as string;
    expect(next.startsWith(`${publicUrl}/api/geodatasets/get/${name}?`), next).toBe(true);
  });

  it('without the front door (no PUBLIC_URL), links keep the request host and the stage path', async () => {
    const body = await viaGateway(
      'geodatasets/tilejson',
      { resource: '/api/geodatasets/tilejson/{name}', pathParameters: { name } },
      { PUBLIC_URL: '' },
    );
    expect(
      body.tiles[0].startsWith(`https://${API_HOST}/prod/api/geodatasets/get/${name}?`),
      body.tiles[0],
    ).toBe(true);
    const landing = await viaGateway('ogc/landing', { resource: '/api/ogc' }, { PUBLIC_URL: '' });
    for (const href of hrefs(landing))
      expect(href.startsWith(`https://${API_HOST}/prod/api/ogc`), href).toBe(true);
  });
});
