import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { getDb } from '#lib/db/index.ts';
import { removeGeodataset } from '#lib/geodatasets/manage.ts';
import { recreateGeodataset } from '#lib/geodatasets/write/write.ts';
import { type RunningService, startService } from '../../local/devServer.ts';
import { points } from '../fixtures/uploads.ts';
import { apiUrl, apiUrlLocal, call, uniqueName } from '../helpers.ts';

/**
 * The public origin of links is configuration, never a request header (docs/tiles.md, "TileJSON";
 * lib/publicUrl.ts): a client's X-Forwarded-Host/-Proto change no link, Location or cookie unless
 * TRUST_FORWARDED_HEADERS=true says a proxy in front sets them. (The stage cache keys the read route
 * without those headers: tests/api/gateway-cache-keys.test.ts.)
 */

const FORGED = { 'X-Forwarded-Host': 'evil.example', 'X-Forwarded-Proto': 'https' };
const db = getDb();
const name = uniqueName('public_links');
let trusted: RunningService;

beforeAll(async () => {
  await recreateGeodataset(db, { type: 'FeatureCollection', features: points(5) }, { name });
  trusted = await startService({
    databaseUrl: inject('databaseUrl'),
    env: { LOG_LEVEL: 'warn', AUTH: 'none', TRUST_FORWARDED_HEADERS: 'true' },
  });
}, 180_000);

afterAll(async () => {
  await trusted?.stop();
  // The catalog row, its table and its rank levels (lib/geodatasets/manage.ts).
  await removeGeodataset(db, name).catch(() => {});
});

/** The links a client is handed on `base`: TileJSON's tiles, the OGC landing page's, a GeoJSON page's next. */
async function links(base: string, headers: Record<string, string>): Promise<string[]> {
  const tilejson = await call('GET', `/api/geodatasets/tilejson/${name}`, { base, headers });
  expect(tilejson.status, tilejson.text.slice(0, 200)).toBe(200);
  const landing = await call('GET', '/api/ogc?f=json', { base, headers });
  expect(landing.status, landing.text.slice(0, 200)).toBe(200);
  const page = await call('GET', `/api/geodatasets/get/${name}?limit=2&after=0`, { base, headers });
  expect(page.status, page.text.slice(0, 200)).toBe(200);
  const next = page.body.links.find((l: any) => l.rel === 'next');
  return [...tilejson.body.tiles, ...landing.body.links.map((l: any) => l.href), next.href];
}

describe('links and cookies under forged X-Forwarded-* headers', () => {
  it('name the host the request was sent to, by default', async () => {
    const all = await links(apiUrl(), FORGED);
    expect(all.length).toBeGreaterThan(4);
    for (const href of all) expect(href.startsWith(`${apiUrl()}/`), href).toBe(true);
  });

  it('name the forwarded host and scheme with TRUST_FORWARDED_HEADERS=true (a proxy of ours in front)', async () => {
    const all = await links(trusted.url, {
      'X-Forwarded-Host': 'maps.example.org',
      'X-Forwarded-Proto': 'https',
    });
    for (const href of all) expect(href.startsWith('https://maps.example.org/api/'), href).toBe(true);
    // Without the headers, the service's own host.
    for (const href of await links(trusted.url, {}))
      expect(href.startsWith(`${trusted.url}/`), href).toBe(true);
  });

  it('keep a Host that is no host name out of links', async () => {
    const tilejson = await call('GET', `/api/geodatasets/tilejson/${name}`, {
      base: trusted.url,
      headers: { 'X-Forwarded-Host': 'evil.example/#', 'X-Forwarded-Proto': 'https' },
    });
    expect(tilejson.body.tiles[0]).toMatch(/^https:\/\/localhost\/api\/geodatasets\/get\//);
  });

  it('set the session cookie without Secure over plain HTTP, whatever X-Forwarded-Proto says', async () => {
    const { username, password } = inject('admin');
    const login = await call('POST', '/api/users/login', {
      base: apiUrlLocal(),
      body: { username, password },
      headers: { 'X-Forwarded-Proto': 'https' },
    });
    expect(login.status, login.text.slice(0, 200)).toBe(200);
    const cookie = login.headers.getSetCookie().find((c) => c.startsWith('MMGISSession='));
    expect(cookie).toBeDefined();
    expect(cookie).not.toMatch(/;\s*Secure/i);
  });
});
