/** MMGIS's `NASA-AMMOS/MMGIS/tests/e2e/api/shortener.spec.js`, ported (README.md). */
import { beforeAll, describe, expect, it } from 'vitest';
import { apiUrl } from '../helpers.ts';
import { callers, newRequestContext as contextAt } from './playwright.ts';

describe.each(callers)('Shortener API ($caller)', ({ session }) => {
  const baseURL = apiUrl();
  let cookie = '';
  beforeAll(async () => {
    cookie = await session();
  });
  const newRequestContext = (base: string) => contextAt(base, cookie);
  const disabled = process.env.DISABLE_LINK_SHORTENER === 'true';

  it('shorten URL and expand round-trip', async (ctx) => {
    ctx.skip(disabled, 'Link shortener is disabled');
    const request = newRequestContext(baseURL);
    const testUrl = `https://example.com/test-page?ts=${Date.now()}`;
    const shortenResponse = await request.post(`${baseURL}/api/shortener/shorten`, {
      data: { url: testUrl },
    });
    expect(shortenResponse.status()).not.toBe(500);
    const shortenBody = await shortenResponse.json().catch(() => null);
    ctx.skip(shortenBody?.status !== 'success', 'Shortener requires authentication');
    expect(shortenBody.body).toHaveProperty('url');
    const shortCode = shortenBody.body.url;
    expect(typeof shortCode).toBe('string');
    expect(shortCode.length).toBeGreaterThan(0);
    const expandResponse = await request.post(`${baseURL}/api/shortener/expand`, {
      data: { short: shortCode },
    });
    expect(expandResponse.status()).not.toBe(500);
    const expandBody = await expandResponse.json().catch(() => null);
    ctx.skip(!expandBody, 'Non-JSON response (AUTH=local)');
    expect(expandBody.status).toBe('success');
    expect(expandBody.body).toHaveProperty('url');
    expect(expandBody.body.url).toBe(testUrl);
  });

  it('handles invalid short codes gracefully', async (ctx) => {
    ctx.skip(disabled, 'Link shortener is disabled');
    const request = newRequestContext(baseURL);
    const response = await request.post(`${baseURL}/api/shortener/expand`, {
      data: { short: `nonexistent_${Date.now()}` },
    });
    expect(response.status()).not.toBe(500);
    const body = await response.json().catch(() => null);
    ctx.skip(!body, 'Non-JSON response (AUTH=local)');
    expect(body.status).toBe('failure');
  });

  it('expand rejects null short code', async (ctx) => {
    ctx.skip(disabled, 'Link shortener is disabled');
    const request = newRequestContext(baseURL);
    const response = await request.post(`${baseURL}/api/shortener/expand`, { data: {} });
    expect(response.status()).not.toBe(500);
    const body = await response.json().catch(() => null);
    ctx.skip(!body, 'Non-JSON response (AUTH=local)');
    expect(body.status).toBe('failure');
    expect(body.message).toContain('not defined');
  });

  it('shorten rejects when DISABLE_LINK_SHORTENER is true', async (ctx) => {
    ctx.skip(!disabled, 'DISABLE_LINK_SHORTENER is not true, cannot test disabled state');
    const request = newRequestContext(baseURL);
    const response = await request.post(`${baseURL}/api/shortener/shorten`, {
      data: { url: 'https://example.com' },
    });
    expect(response.status()).not.toBe(500);
    const body = await response.json().catch(() => null);
    ctx.skip(!body, 'Non-JSON response (AUTH=local)');
    expect(body.status).toBe('failure');
  });
});
