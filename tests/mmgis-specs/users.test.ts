/** MMGIS's `NASA-AMMOS/MMGIS/tests/e2e/api/users.spec.js`, ported (README.md). */
import { describe, expect, it } from 'vitest';
import { apiUrl } from '../helpers.ts';
import { newRequestContext } from './playwright.ts';

describe('Users API', () => {
  const baseURL = apiUrl();

  describe('POST /api/users/login', () => {
    it('returns failure with invalid credentials', async () => {
      const response = await newRequestContext(baseURL).post('/api/users/login', {
        data: { username: 'nonexistent_user_xyz', password: 'wrong_password' },
      });
      expect(response.status()).toBeLessThan(500);
      const body = await response.json();
      expect(body.status).toBe('failure');
      expect(body).toHaveProperty('message');
    });

    it('returns failure with missing username', async () => {
      const response = await newRequestContext(baseURL).post('/api/users/login', {
        data: { password: 'some_password' },
      });
      expect(response.status()).toBeLessThan(500);
      expect((await response.json()).status).toBe('failure');
    });

    it('does not return 500 on valid login attempt', async () => {
      const response = await newRequestContext(baseURL).post('/api/users/login', {
        data: { username: 'guest', password: '' },
      });
      expect(response.status()).toBeLessThan(500);
      const body = await response.json();
      expect(body).toHaveProperty('status');
      expect(['success', 'failure']).toContain(body.status);
    });
  });
});
