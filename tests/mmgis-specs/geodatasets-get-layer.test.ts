/**
 * MMGIS's `NASA-AMMOS/MMGIS/tests/e2e/api/geodatasets-get-layer.spec.js`, ported (README.md): the form that
 * reads `entries` from `body.entries`, as ours answers and as `geodatasets-crud.spec.js` reads it. Its
 * tests skip when no geodataset exists; it runs anonymously and with the administrator session (`callers`).
 * The suite's fresh database may hold no geodataset (every test would skip) or only other files'
 * short-lived layers (one removed mid-test would be a false failure). So the port first makes one
 * layer of its own, with a unique name that sorts first (`entries` is sorted by name, code point; the other
 * files' names start with a letter), and removes it after; the spec's requests and assertions are unchanged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCookie, apiUrl, uniqueName } from '../helpers.ts';
import { callers, newRequestContext as contextAt, type SpecResponse } from './playwright.ts';

/** Safely parse JSON; null when the response is HTML (a login page). */
async function safeJson(response: SpecResponse) {
  const ct = response.headers()['content-type'] || '';
  if (ct.includes('text/html')) return null;
  try {
    return await response.json();
  } catch {
    return null;
  }
}

const ownLayer = uniqueName('0_get_layer');

beforeAll(async () => {
  const made = await contextAt(apiUrl(), await adminCookie()).post('/api/geodatasets/recreate', {
    data: {
      name: ownLayer,
      geojson: JSON.stringify({
        type: 'FeatureCollection',
        features: [
          { type: 'Feature', geometry: { type: 'Point', coordinates: [0, 0] }, properties: { n: 1 } },
        ],
      }),
    },
  });
  if ((await made.json()).status !== 'success') throw new Error(`recreate ${ownLayer}: ${await made.text()}`);
});

afterAll(async () => {
  await contextAt(apiUrl(), await adminCookie()).delete(`/api/geodatasets/remove/${ownLayer}`);
});

describe.each(callers)('Geodatasets /get/:layer — path parameter route ($caller)', ({ session }) => {
  const baseURL = apiUrl();
  let cookie = '';
  let geodatasetName: string | undefined;
  const request = () => contextAt(baseURL, cookie);

  beforeAll(async () => {
    cookie = await session();
    const response = await request().post(`${baseURL}/api/geodatasets/entries`, { data: {} });
    const data = await safeJson(response);
    if (data?.status === 'success' && Array.isArray(data.body?.entries) && data.body.entries.length > 0)
      geodatasetName = data.body.entries[0].name;
  });

  it('GET /api/geodatasets/get/:layer returns data for the layer', async (ctx) => {
    if (!geodatasetName) {
      ctx.skip(true, 'SKIP: no geodatasets available in test database');
      return;
    }
    const response = await request().get(
      `${baseURL}/api/geodatasets/get/${encodeURIComponent(geodatasetName)}`,
    );
    expect(response.status()).toBeLessThan(500);
    const data = await safeJson(response);
    if (!data) {
      ctx.skip(true, 'SKIP: HTML response (login page in AUTH=local)');
      return;
    }
    expect(data).toBeDefined();
    if (data.status) expect(data.status).not.toBe('failure');
  });

  it('GET /api/geodatasets/get/:layer matches query-string variant', async (ctx) => {
    if (!geodatasetName) {
      ctx.skip(true, 'SKIP: no geodatasets available in test database');
      return;
    }
    const pathRes = await request().get(
      `${baseURL}/api/geodatasets/get/${encodeURIComponent(geodatasetName)}`,
    );
    const pathData = await safeJson(pathRes);
    const queryRes = await request().get(
      `${baseURL}/api/geodatasets/get?layer=${encodeURIComponent(geodatasetName)}`,
    );
    const queryData = await safeJson(queryRes);
    if (!pathData || !queryData) {
      ctx.skip(true, 'SKIP: HTML response');
      return;
    }
    expect(pathRes.status()).toBe(queryRes.status());
    if (pathData.status && queryData.status) expect(pathData.status).toBe(queryData.status);
  });

  it('GET /api/geodatasets/get/:layer does not crash the server', async () => {
    const response = await request().get(`${baseURL}/api/geodatasets/get/nonexistent_layer_name`);
    expect(response.status()).toBeLessThan(500);
  });
});
