/** MMGIS's `NASA-AMMOS/MMGIS/tests/e2e/api/webhooks.spec.js`, ported (README.md). */
import { beforeAll, describe, expect, it } from 'vitest';
import { apiUrl } from '../helpers.ts';
import { callers, newRequestContext as contextAt } from './playwright.ts';

describe.each(callers)('Webhooks API ($caller)', ({ caller, session }) => {
  const baseURL = apiUrl();
  let cookie = '';
  beforeAll(async () => {
    cookie = await session();
  });
  const newRequestContext = (base: string) => contextAt(base, cookie);

  /**
   * Fails once saved (with the administrator's session): `entries[].config` is the stored configuration's
   * JSON text here, as the 3.0.0 configure app reads it (`JSON.parse(body.entries[0].config)`,
   * docs/webhooks.md); the newest MMGIS answers the object, so the spec's `e.config.name` is undefined.
   */
  const itSaved = caller === 'anonymous' ? it : it.fails;
  itSaved('CRUD lifecycle: save webhook config and list entries', async (ctx) => {
    const request = newRequestContext(baseURL);
    const uniqueId = `test_webhook_${Date.now()}`;
    const saveResponse = await request.post(`${baseURL}/api/webhooks/save`, {
      data: {
        config: {
          name: uniqueId,
          url: 'https://example.com/webhook-receiver',
          events: ['layer_update'],
          active: true,
        },
      },
    });
    expect(saveResponse.status()).not.toBe(500);
    const saveBody = await saveResponse.json();
    ctx.skip(saveBody.status !== 'success', 'Webhooks requires authentication or returned non-success');
    expect(saveBody.status).toBe('success');
    const entriesResponse = await request.get(`${baseURL}/api/webhooks/entries`);
    expect(entriesResponse.status()).not.toBe(500);
    const entriesBody = await entriesResponse.json();
    if (entriesBody.status === 'success' && entriesBody.body?.entries) {
      const entries = entriesBody.body.entries;
      expect(Array.isArray(entries)).toBe(true);
      const ourEntry = entries.find(
        (e: { config?: { name?: string } }) => e.config && e.config.name === uniqueId,
      );
      expect(ourEntry).toBeDefined();
    }
  });

  it('POST /api/webhooks/config triggers config update', async () => {
    const response = await newRequestContext(baseURL).post(`${baseURL}/api/webhooks/config`, { data: {} });
    expect(response.status()).not.toBe(500);
    if (response.status() === 200) {
      const body = await response.json();
      if (body.status === 'success') expect(body.message).toContain('Successfully updated webhooks config');
    }
  });

  it('GET /api/webhooks/entries does not return 500', async () => {
    const response = await newRequestContext(baseURL).get(`${baseURL}/api/webhooks/entries`);
    expect(response.status()).not.toBe(500);
  });
});
