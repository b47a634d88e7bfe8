/**
 * MMGIS's `NASA-AMMOS/MMGIS/tests/e2e/api/draw-crud.spec.js`, ported (README.md). Its tests skip when the
 * server refuses to make a file; it runs as written and with the suite's administrator session (`callers`).
 * One file because the spec is one: its serial lifecycle shares the file and feature it makes.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { apiUrl } from '../helpers.ts';
import { ensureReferenceMission } from './missions.ts';
import { callers, newRequestContext as contextAt } from './playwright.ts';

describe.each(callers)('Draw/Files API ($caller)', ({ session }) => {
  const baseURL = apiUrl();
  let cookie = '';
  beforeAll(async () => {
    await ensureReferenceMission();
    cookie = await session();
  });
  const newRequestContext = () => contextAt(baseURL, cookie);
  const make = (file_name: string, file_description: string, intent = 'all') =>
    newRequestContext().post(`${baseURL}/api/files/make`, {
      data: { file_name, file_description, intent, test: 'false' },
    });

  describe('Draw/Files API — CRUD lifecycle', () => {
    const mission = 'Reference-Mission';
    let createdFileId: number | null = null;
    let createdFeatureId: number | null = null;

    it('POST /api/files/getfiles — lists files for mission', async () => {
      const response = await newRequestContext().post(`${baseURL}/api/files/getfiles`, { data: { mission } });
      expect(response.status()).toBeLessThan(500);
      const data = await response.json();
      expect(data).toHaveProperty('status');
      if (data.status === 'success') expect(data).toHaveProperty('body');
    });

    it('POST /api/files/make — creates a new draw file', async () => {
      const response = await make(`test_draw_crud_${Date.now()}`, 'Automated test file', 'roi');
      expect(response.status()).toBeLessThan(500);
      const data = await response.json();
      expect(data).toHaveProperty('status');
      if (data.status === 'success') {
        expect(data.body).toHaveProperty('file_id');
        createdFileId = data.body.file_id;
      }
    });

    it('POST /api/draw/add — adds a point feature to the file', async (ctx) => {
      if (createdFileId == null) {
        ctx.skip(true, 'SKIP: No file was created in the prior step');
        return;
      }
      const geometry = { type: 'Point', coordinates: [-122.42, 37.78] };
      const response = await newRequestContext().post(`${baseURL}/api/draw/add`, {
        data: {
          file_id: createdFileId,
          intent: 'point',
          properties: JSON.stringify({ name: 'Test Point', uuid: `uuid-${Date.now()}` }),
          geometry: JSON.stringify(geometry),
          test: 'false',
        },
      });
      expect(response.status()).toBeLessThan(500);
      const data = await response.json();
      expect(data).toHaveProperty('status');
      if (data.status === 'success') {
        expect(data.body).toHaveProperty('id');
        createdFeatureId = data.body.id;
      }
    });

    it('POST /api/files/getfile — retrieves the created file', async (ctx) => {
      if (createdFileId == null) {
        ctx.skip(true, 'SKIP: No file was created — cannot retrieve');
        return;
      }
      const response = await newRequestContext().post(`${baseURL}/api/files/getfile`, {
        data: { id: createdFileId, test: 'false' },
      });
      expect(response.status()).toBeLessThan(500);
      const data = await response.json();
      expect(data).toHaveProperty('status');
      if (data.status === 'success') expect(data.body).toHaveProperty('geojson');
    });

    it('POST /api/draw/edit — edits the point feature geometry', async (ctx) => {
      if (createdFileId == null || createdFeatureId == null) {
        ctx.skip(true, 'SKIP: File/feature not created — cannot edit');
        return;
      }
      const newGeometry = { type: 'Point', coordinates: [-122.43, 37.79] };
      const response = await newRequestContext().post(`${baseURL}/api/draw/edit`, {
        data: {
          file_id: createdFileId,
          feature_id: createdFeatureId,
          geometry: JSON.stringify(newGeometry),
          test: 'false',
        },
      });
      expect(response.status()).toBeLessThan(500);
      const data = await response.json();
      expect(data).toHaveProperty('status');
      if (data.status === 'success') {
        expect(data.body).toHaveProperty('id');
        createdFeatureId = data.body.id;
      }
    });

    it('POST /api/draw/remove — removes the feature', async (ctx) => {
      if (createdFileId == null || createdFeatureId == null) {
        ctx.skip(true, 'SKIP: File/feature not created — cannot remove');
        return;
      }
      const response = await newRequestContext().post(`${baseURL}/api/draw/remove`, {
        data: { file_id: createdFileId, id: createdFeatureId, test: 'false' },
      });
      expect(response.status()).toBeLessThan(500);
      const data = await response.json();
      expect(data).toHaveProperty('status');
    });

    it('POST /api/files/getfile — file has no features after removal', async (ctx) => {
      if (createdFileId == null) {
        ctx.skip(true, 'SKIP: No file was created');
        return;
      }
      const response = await newRequestContext().post(`${baseURL}/api/files/getfile`, {
        data: { id: createdFileId, test: 'false' },
      });
      expect(response.status()).toBeLessThan(500);
      const data = await response.json();
      expect(data).toHaveProperty('status');
      if (data.status === 'success' && data.body?.geojson) expect(data.body.geojson.features.length).toBe(0);
    });

    it('POST /api/files/remove — hides the created file', async (ctx) => {
      if (createdFileId == null) {
        ctx.skip(true, 'SKIP: No file was created');
        return;
      }
      const response = await newRequestContext().post(`${baseURL}/api/files/remove`, {
        data: { id: createdFileId, test: 'false' },
      });
      expect(response.status()).toBeLessThan(500);
      const data = await response.json();
      expect(data).toHaveProperty('status');
    });
  });

  describe('Draw/Files API — Line and Polygon features', () => {
    let lineFileId: number | null = null;
    beforeAll(() => async () => {
      if (lineFileId != null)
        await newRequestContext()
          .post(`${baseURL}/api/files/remove`, { data: { id: lineFileId, test: 'false' } })
          .catch(() => {});
    });

    it('create file and add LineString feature', async (ctx) => {
      const request = newRequestContext();
      const makeRes = await make(`test_line_${Date.now()}`, 'Line feature test');
      expect(makeRes.status()).toBeLessThan(500);
      const makeData = await makeRes.json();
      if (makeData.status !== 'success') {
        ctx.skip(true, 'SKIP: Could not create file for line feature test');
        return;
      }
      lineFileId = makeData.body.file_id;
      const lineGeometry = {
        type: 'LineString',
        coordinates: [
          [-122.42, 37.78],
          [-122.43, 37.79],
          [-122.44, 37.8],
        ],
      };
      const addRes = await request.post(`${baseURL}/api/draw/add`, {
        data: {
          file_id: lineFileId,
          intent: 'line',
          properties: JSON.stringify({ name: 'Test Line', uuid: `uuid-line-${Date.now()}` }),
          geometry: JSON.stringify(lineGeometry),
          test: 'false',
        },
      });
      expect(addRes.status()).toBeLessThan(500);
      const addData = await addRes.json();
      expect(addData).toHaveProperty('status');
      if (addData.status === 'success') expect(addData.body).toHaveProperty('id');
      const getRes = await request.post(`${baseURL}/api/files/getfile`, {
        data: { id: lineFileId, test: 'false' },
      });
      expect(getRes.status()).toBeLessThan(500);
      const getData = await getRes.json();
      if (getData.status === 'success' && getData.body?.geojson)
        expect(getData.body.geojson.features.length).toBeGreaterThanOrEqual(1);
    });

    it('create file and add Polygon feature', async (ctx) => {
      const request = newRequestContext();
      const makeRes = await make(`test_polygon_${Date.now()}`, 'Polygon feature test');
      expect(makeRes.status()).toBeLessThan(500);
      const makeData = await makeRes.json();
      if (makeData.status !== 'success') {
        ctx.skip(true, 'SKIP: Could not create file for polygon feature test');
        return;
      }
      const polyFileId = makeData.body.file_id;
      const polygonGeometry = {
        type: 'Polygon',
        coordinates: [
          [
            [-122.42, 37.78],
            [-122.43, 37.78],
            [-122.43, 37.79],
            [-122.42, 37.79],
            [-122.42, 37.78],
          ],
        ],
      };
      const addRes = await request.post(`${baseURL}/api/draw/add`, {
        data: {
          file_id: polyFileId,
          intent: 'polygon',
          properties: JSON.stringify({ name: 'Test Polygon', uuid: `uuid-poly-${Date.now()}` }),
          geometry: JSON.stringify(polygonGeometry),
          test: 'false',
        },
      });
      expect(addRes.status()).toBeLessThan(500);
      const addData = await addRes.json();
      expect(addData).toHaveProperty('status');
      if (addData.status === 'success') expect(addData.body).toHaveProperty('id');
      await request.post(`${baseURL}/api/files/remove`, { data: { id: polyFileId, test: 'false' } });
    });
  });

  describe('Draw/Files API — merge, split, undo, publish', () => {
    it('merge features', (ctx) => {
      ctx.skip(
        true,
        'SKIP: Merge requires multiple polygon features in a file owned by the user — complex setup needed',
      );
    });

    it('split feature', (ctx) => {
      ctx.skip(
        true,
        'SKIP: Split requires a polygon feature and a line to split against — complex setup needed',
      );
    });

    it('undo operation', async (ctx) => {
      const request = newRequestContext();
      const makeRes = await make(`test_undo_${Date.now()}`, 'Undo test');
      expect(makeRes.status()).toBeLessThan(500);
      const makeData = await makeRes.json();
      if (makeData.status !== 'success') {
        ctx.skip(true, 'SKIP: Could not create file for undo test');
        return;
      }
      const fileId = makeData.body.file_id;
      const addRes = await request.post(`${baseURL}/api/draw/add`, {
        data: {
          file_id: fileId,
          intent: 'point',
          properties: JSON.stringify({ name: 'Undo Me', uuid: `uuid-undo-${Date.now()}` }),
          geometry: JSON.stringify({ type: 'Point', coordinates: [-122.42, 37.78] }),
          test: 'false',
        },
      });
      expect(addRes.status()).toBeLessThan(500);
      const addData = await addRes.json();
      if (addData.status !== 'success') {
        ctx.skip(true, 'SKIP: Could not add feature for undo test');
        return;
      }
      const histRes = await request.post(`${baseURL}/api/files/gethistory`, {
        data: { id: fileId, test: 'false' },
      });
      expect(histRes.status()).toBeLessThan(500);
      const histData = await histRes.json();
      if (histData.status !== 'success' || !histData.body || histData.body.length === 0) {
        ctx.skip(true, 'SKIP: Could not get history for undo test');
        return;
      }
      const lastEntry = histData.body[0];
      const undoTime = lastEntry.time;
      const undoRes = await request.post(`${baseURL}/api/draw/undo`, {
        data: { file_id: fileId, undo_time: undoTime, test: 'false' },
      });
      expect(undoRes.status()).toBeLessThan(500);
      const undoData = await undoRes.json();
      expect(undoData).toHaveProperty('status');
      await request
        .post(`${baseURL}/api/files/remove`, { data: { id: fileId, test: 'false' } })
        .catch(() => {});
    });

    it('publish draw file', async () => {
      const response = await newRequestContext().post(`${baseURL}/api/files/publish`, {
        data: { test: 'false' },
      });
      expect(response.status()).toBeLessThan(500);
      const data = await response.json();
      expect(data).toHaveProperty('status');
      expect(['success', 'failure']).toContain(data.status);
    });
  });

  describe('Draw/Files API — error handling', () => {
    it('rejects adding feature with invalid geometry', async (ctx) => {
      const request = newRequestContext();
      const makeRes = await make(`test_invalid_geom_${Date.now()}`, 'Invalid geometry test');
      const makeData = await makeRes.json();
      if (makeData.status !== 'success') {
        ctx.skip(true, 'SKIP: Could not create file for invalid geometry test');
        return;
      }
      const fileId = makeData.body.file_id;
      const response = await request.post(`${baseURL}/api/draw/add`, {
        data: {
          file_id: fileId,
          intent: 'point',
          properties: JSON.stringify({ name: 'Bad Feature' }),
          geometry: 'NOT_VALID_JSON',
          test: 'false',
        },
      });
      expect(response.status()).toBeLessThan(500);
      await request
        .post(`${baseURL}/api/files/remove`, { data: { id: fileId, test: 'false' } })
        .catch(() => {});
    });

    it('getfile with nonexistent id returns failure or error', async () => {
      const request = newRequestContext();
      const response = await request.post(`${baseURL}/api/files/getfile`, {
        data: { id: 999999, test: 'false' },
      });
      const status = response.status();
      if (status >= 500) {
        const healthcheck = await request.get(`${baseURL}/api/utils/healthcheck`);
        expect(healthcheck.status()).toBe(200);
      } else {
        const data = await response.json();
        expect(data).toHaveProperty('status');
      }
    });

    it('remove nonexistent file returns gracefully', async () => {
      const response = await newRequestContext().post(`${baseURL}/api/files/remove`, {
        data: { id: 999999, test: 'false' },
      });
      expect(response.status()).toBeLessThan(500);
      const data = await response.json();
      expect(data).toHaveProperty('status');
    });

    it('POST /api/files/gethistory for nonexistent file', async () => {
      const response = await newRequestContext().post(`${baseURL}/api/files/gethistory`, {
        data: { id: 999999, test: 'false' },
      });
      expect(response.status()).toBeLessThan(500);
      const data = await response.json();
      expect(data).toHaveProperty('status');
    });

    it('POST /api/files/change — update file name', async (ctx) => {
      const request = newRequestContext();
      const makeRes = await make(`test_change_${Date.now()}`, 'Change test');
      const makeData = await makeRes.json();
      if (makeData.status !== 'success') {
        ctx.skip(true, 'SKIP: Could not create file for change test');
        return;
      }
      const fileId = makeData.body.file_id;
      const changeRes = await request.post(`${baseURL}/api/files/change`, {
        data: { id: fileId, file_name: `renamed_${Date.now()}`, test: 'false' },
      });
      expect(changeRes.status()).toBeLessThan(500);
      const changeData = await changeRes.json();
      expect(changeData).toHaveProperty('status');
      await request
        .post(`${baseURL}/api/files/remove`, { data: { id: fileId, test: 'false' } })
        .catch(() => {});
    });
  });
});
