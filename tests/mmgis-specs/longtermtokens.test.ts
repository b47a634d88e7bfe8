/** MMGIS's `NASA-AMMOS/MMGIS/tests/e2e/api/longtermtokens.spec.js`, ported (README.md). */
import { beforeAll, describe, expect, it } from 'vitest';
import { apiUrl } from '../helpers.ts';
import { callers, newRequestContext as contextAt } from './playwright.ts';

describe.skipIf(process.env.AUTH === 'off').each(callers)('Long Term Tokens API ($caller)', ({ session }) => {
  const baseURL = apiUrl();
  let cookie = '';
  beforeAll(async () => {
    cookie = await session();
  });
  const newRequestContext = (base: string) => contextAt(base, cookie);

  it('create token, list, delete, verify revoked', async (ctx) => {
    const request = newRequestContext(baseURL);
    const uniqueName = `testtoken${Date.now()}`;
    const generateResponse = await request.post(`${baseURL}/api/longtermtoken/generate`, {
      data: { name: uniqueName, period: '1d' },
    });
    expect(generateResponse.status()).not.toBe(500);
    const generateBody = await generateResponse.json();
    ctx.skip(generateBody.status !== 'success', 'Long term tokens require authentication');
    expect(generateBody.body).toHaveProperty('token');
    const createdToken = generateBody.body.token;
    expect(typeof createdToken).toBe('string');
    expect(createdToken).toContain(uniqueName);
    const listResponse = await request.get(`${baseURL}/api/longtermtoken/get`);
    expect(listResponse.status()).not.toBe(500);
    const listBody = await listResponse.json();
    expect(listBody.status).toBe('success');
    expect(Array.isArray(listBody.tokens)).toBe(true);
    const ourToken = listBody.tokens.find((t: { token: string }) => t.token === createdToken);
    expect(ourToken).toBeDefined();
    const tokenId = ourToken.id;
    const clearResponse = await request.post(`${baseURL}/api/longtermtoken/clear`, { data: { id: tokenId } });
    expect(clearResponse.status()).not.toBe(500);
    expect((await clearResponse.json()).status).toBe('success');
    const verifyResponse = await request.get(`${baseURL}/api/longtermtoken/get`);
    expect(verifyResponse.status()).not.toBe(500);
    const verifyBody = await verifyResponse.json();
    if (verifyBody.status === 'success') {
      expect(verifyBody.tokens.find((t: { id: unknown }) => t.id === tokenId)).toBeUndefined();
    }
  });

  it('POST /api/longtermtoken/clear rejects missing id', async () => {
    const response = await newRequestContext(baseURL).post(`${baseURL}/api/longtermtoken/clear`, {
      data: {},
    });
    expect(response.status()).not.toBe(500);
    if (response.status() === 200) expect((await response.json()).status).toBe('failure');
  });

  it('POST /api/longtermtoken/clear rejects non-existent id', async () => {
    const response = await newRequestContext(baseURL).post(`${baseURL}/api/longtermtoken/clear`, {
      data: { id: 999999999 },
    });
    expect(response.status()).not.toBe(500);
    if (response.status() === 200) {
      const body = await response.json();
      if (body.status === 'failure') expect(body.message).toBeDefined();
    }
  });

  it('GET /api/longtermtoken/get does not return 500', async () => {
    const response = await newRequestContext(baseURL).get(`${baseURL}/api/longtermtoken/get`);
    expect(response.status()).not.toBe(500);
  });
});
