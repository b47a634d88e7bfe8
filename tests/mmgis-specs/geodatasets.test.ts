/**
 * MMGIS's `NASA-AMMOS/MMGIS/tests/e2e/api/geodatasets.spec.js`, ported (README.md): the form with the
 * `startProp`/`endProp` injection cases for `intersect`, `aggregations` and `get`. It reads a layer no test
 * makes (`test_geodataset`; the crud port's layers carry a random suffix), so every answer is a failure and
 * the spec checks that none is a 500. Runs anonymously, as written (it has no skips).
 */
import { describe, expect, it } from 'vitest';
import { apiUrl } from '../helpers.ts';
import { newRequestContext } from './playwright.ts';

const intersect = JSON.stringify({
  type: 'Polygon',
  coordinates: [
    [
      [-180, -90],
      [180, -90],
      [180, 90],
      [-180, 90],
      [-180, -90],
    ],
  ],
});

describe('Geodatasets API', () => {
  const request = () => newRequestContext(apiUrl());

  describe('POST /api/geodatasets/intersect', () => {
    it('returns a valid response for a basic intersect request', async () => {
      const response = await request().post('/api/geodatasets/intersect', {
        data: { layer: 'test_geodataset', intersect },
      });
      expect(response.status()).toBeLessThan(500);
      const body = await response.json();
      expect(body).toHaveProperty('status');
    });

    it('returns a valid response with time filter parameters', async () => {
      const response = await request().post('/api/geodatasets/intersect', {
        data: {
          layer: 'test_geodataset',
          intersect,
          starttime: '2024-01-01T00:00:00Z',
          endtime: '2024-12-31T23:59:59Z',
          startProp: 'start_time',
          endProp: 'end_time',
        },
      });
      expect(response.status()).toBeLessThan(500);
      const body = await response.json();
      expect(body).toHaveProperty('status');
    });

    it('handles malicious time parameters without server error', async () => {
      const response = await request().post('/api/geodatasets/intersect', {
        data: {
          layer: 'test_geodataset',
          intersect,
          starttime: '1; DROP TABLE geodatasets; --',
          endtime: '2024-12-31T23:59:59Z',
        },
      });
      expect(response.status()).toBeLessThan(500);
    });
  });

  describe('POST /api/geodatasets/intersect - SQL injection', () => {
    it('handles malicious startProp/endProp in intersect without server error', async () => {
      const response = await request().post('/api/geodatasets/intersect', {
        data: {
          layer: 'test_geodataset',
          intersect,
          starttime: '2024-01-01T00:00:00Z',
          endtime: '2024-12-31T23:59:59Z',
          startProp: "'; DROP TABLE geodatasets; --",
          endProp: 'end_time OR 1=1; --',
        },
      });
      expect(response.status()).toBeLessThan(500);
    });
  });

  describe('GET /api/geodatasets/aggregations - SQL injection', () => {
    it('handles malicious startProp/endProp in aggregations without server error', async () => {
      const response = await request().get('/api/geodatasets/aggregations', {
        params: {
          layer: 'test_geodataset',
          starttime: '2024-01-01T00:00:00Z',
          endtime: '2024-12-31T23:59:59Z',
          startProp: "'; DROP TABLE geodatasets; --",
          endProp: 'end_time OR 1=1; --',
        },
      });
      expect(response.status()).toBeLessThan(500);
    });
  });

  describe('GET /api/geodatasets/get', () => {
    it('returns a valid response with time filter parameters', async () => {
      const response = await request().get('/api/geodatasets/get', {
        params: {
          layer: 'test_geodataset',
          type: 'all',
          starttime: '2024-01-01T00:00:00Z',
          endtime: '2024-12-31T23:59:59Z',
        },
      });
      expect(response.status()).toBeLessThan(500);
      const body = await response.json();
      expect(body).toHaveProperty('status');
    });
  });

  describe('GET /api/geodatasets/get - SQL injection', () => {
    it('handles malicious startProp/endProp in get without server error', async () => {
      const response = await request().get('/api/geodatasets/get', {
        params: {
          layer: 'test_geodataset',
          starttime: '2024-01-01T00:00:00Z',
          endtime: '2024-12-31T23:59:59Z',
          startProp: "'; DROP TABLE geodatasets; --",
          endProp: 'end_time OR 1=1; --',
        },
      });
      expect(response.status()).toBeLessThan(500);
    });
  });
});
