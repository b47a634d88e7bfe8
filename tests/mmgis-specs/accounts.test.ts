/**
 * MMGIS's `NASA-AMMOS/MMGIS/tests/e2e/api/accounts.spec.js`, ported (README.md). This service has no `/api/accounts`
 * (docs/mmgis-compatibility.md): the spec checks the body only on a 200, so our 404s pass it.
 */
import { describe, expect, it } from 'vitest';
import { apiUrl } from '../helpers.ts';
import { newRequestContext } from './playwright.ts';

describe.skipIf(process.env.AUTH === 'off')('Accounts API', () => {
  const baseURL = apiUrl();

  it('GET /api/accounts/entries returns user list or requires auth', async () => {
    const response = await newRequestContext(baseURL).get(`${baseURL}/api/accounts/entries`);
    expect(response.status()).not.toBe(500);
    if (response.status() === 200) {
      const body = await response.json();
      if (body.status === 'success') {
        expect(body.body).toHaveProperty('entries');
        expect(Array.isArray(body.body.entries)).toBe(true);
      }
    }
  });

  it('DELETE /api/accounts/remove/:id rejects invalid id', async () => {
    const response = await newRequestContext(baseURL).delete(`${baseURL}/api/accounts/remove/notanumber`);
    expect(response.status()).not.toBe(500);
    if (response.status() === 200) {
      const body = await response.json();
      expect(body.status).toBe('failure');
      expect(body.message).toContain('User Id is null');
    }
  });

  it('DELETE /api/accounts/remove/1 cannot delete original admin', async () => {
    const response = await newRequestContext(baseURL).delete(`${baseURL}/api/accounts/remove/1`);
    expect(response.status()).not.toBe(500);
    if (response.status() === 200) {
      const body = await response.json();
      expect(body.status).toBe('failure');
      expect(body.message).toContain('Cannot delete the original Administrator');
    }
  });

  it('POST /api/accounts/update rejects missing id', async () => {
    const response = await newRequestContext(baseURL).post(`${baseURL}/api/accounts/update`, {
      data: { email: 'test@example.com' },
    });
    expect(response.status()).not.toBe(500);
    if (response.status() === 200) {
      const body = await response.json();
      expect(body.status).toBe('failure');
      expect(body.message).toContain('User Id is null');
    }
  });

  it('POST /api/accounts/update rejects non-numeric id', async () => {
    const response = await newRequestContext(baseURL).post(`${baseURL}/api/accounts/update`, {
      data: { id: 'abc', email: 'test@example.com' },
    });
    expect(response.status()).not.toBe(500);
    if (response.status() === 200) expect((await response.json()).status).toBe('failure');
  });

  it('POST /api/accounts/update only accepts valid permission values', async () => {
    const response = await newRequestContext(baseURL).post(`${baseURL}/api/accounts/update`, {
      data: { id: 999999, permission: 'invalid_perm' },
    });
    expect(response.status()).not.toBe(500);
  });

  it('POST /api/accounts/generateResetPasswordLink rejects missing id', async () => {
    const response = await newRequestContext(baseURL).post(
      `${baseURL}/api/accounts/generateResetPasswordLink`,
      { data: {} },
    );
    expect(response.status()).not.toBe(500);
    if (response.status() === 200) {
      const body = await response.json();
      expect(body.status).toBe('failure');
      expect(body.message).toContain('User Id is null');
    }
  });

  it('POST /api/accounts/generateResetPasswordLink rejects non-numeric id', async () => {
    const response = await newRequestContext(baseURL).post(
      `${baseURL}/api/accounts/generateResetPasswordLink`,
      { data: { id: 'notanumber' } },
    );
    expect(response.status()).not.toBe(500);
    if (response.status() === 200) expect((await response.json()).status).toBe('failure');
  });
});
