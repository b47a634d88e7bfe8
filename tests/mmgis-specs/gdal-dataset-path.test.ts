/**
 * MMGIS's `NASA-AMMOS/MMGIS/tests/e2e/security/gdal-dataset-path.spec.js`, ported (README.md): getprofile, getbands and
 * getminmax refuse any `path` that is not a file below the mission data root with 400 `{error: true}`.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { apiUrl } from '../helpers.ts';
import { newRequestContext } from './playwright.ts';

describe('GDAL dataset path validation', () => {
  const baseURL = apiUrl();
  const state = { loginRequired: false };
  beforeAll(async () => {
    const probe = await newRequestContext(baseURL).post(`${baseURL}/api/utils/getminmax`, {
      form: { type: 'minmax', path: '/etc/passwd', bands: '[1]' },
    });
    state.loginRequired = (probe.headers()['content-type'] || '').includes('text/html');
  });

  const rawVRT = (file: string) =>
    '<VRTDataset rasterXSize="64" rasterYSize="1">' +
    '<VRTRasterBand dataType="Byte" band="1" subClass="VRTRawRasterBand">' +
    `<SourceFilename relativeToVRT="0">${file}</SourceFilename>` +
    '<ImageOffset>0</ImageOffset><PixelOffset>1</PixelOffset>' +
    '<LineOffset>64</LineOffset>' +
    '</VRTRasterBand></VRTDataset>';

  const maliciousPaths = [
    ['inline raw VRT over /etc/passwd', rawVRT('/etc/passwd')],
    ['inline raw VRT over .env', rawVRT('.env')],
    ['absolute path outside Missions', '/etc/passwd'],
    ['traversal out of Missions', '/Missions/../../../etc/passwd'],
    ['encoded traversal out of Missions', '/Missions/%2e%2e/%2e%2e/etc/passwd'],
    ['vsicurl remote dataset', '/vsicurl/http://169.254.169.254/latest/meta-data/'],
    ['bare http url', 'http://169.254.169.254/latest/meta-data/'],
    ['vsizip local wrapper', '/vsizip//etc/passwd'],
  ] as const;

  const endpoints = [
    [
      'getprofile',
      (p: string) => ({ type: '2pts', path: p, lat1: 0, lon1: 0, lat2: 1, lon2: 1, steps: 4, axes: 'z' }),
    ],
    ['getbands', (p: string) => ({ type: 'band', path: p, x: 0, y: 0, xyorll: 'll', bands: '[[1,1]]' })],
    ['getminmax', (p: string) => ({ type: 'minmax', path: p, bands: '[1]' })],
  ] as const;

  for (const [endpoint, body] of endpoints) {
    for (const [label, badPath] of maliciousPaths) {
      it(`${endpoint} rejects ${label}`, async (ctx) => {
        ctx.skip(state.loginRequired, 'AUTH=local: route is behind the login page');
        const response = await newRequestContext(baseURL).post(`${baseURL}/api/utils/${endpoint}`, {
          form: body(badPath),
        });
        expect(response.status()).toBe(400);
        const text = await response.text();
        expect(JSON.parse(text)).toMatchObject({ error: true });
        expect(text).not.toContain('root:');
        expect(text).not.toContain('/bin/bash');
        expect(text).not.toContain('SECRET');
      });
    }

    it(`${endpoint} rejects a missing path`, async (ctx) => {
      ctx.skip(state.loginRequired, 'AUTH=local: route is behind the login page');
      const response = await newRequestContext(baseURL).post(`${baseURL}/api/utils/${endpoint}`, {
        form: body(''),
      });
      expect(response.status()).toBe(400);
    });
  }
});
