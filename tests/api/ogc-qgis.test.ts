import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { qgisPython, runQgis } from '../fixtures/qgis.ts';
import { admin } from '../fixtures/uploads.ts';
import { apiUrl, call, uniqueName } from '../helpers.ts';

/**
 * QGIS itself (headless PyQGIS, Debian's python3-qgis) reads a collection of the OGC API and filters the
 * layer on its time field, closed and open-ended both ways (docs/ogc.md, "datetime").
 */

const script = fileURLToPath(new URL('../fixtures/qgis_client.py', import.meta.url));
const name = uniqueName('ogc_qgis');

const python = await qgisPython();

beforeAll(async () => {
  const features = Array.from({ length: 10 }, (_, i) => ({
    type: 'Feature',
    geometry: { type: 'Point', coordinates: [i, i / 2] },
    properties: { i, t: new Date(Date.UTC(2024, 0, 1 + i)).toISOString() },
  }));
  const r = await call('POST', '/api/geodatasets/recreate', {
    ...admin(),
    body: { name, startProp: 't', geojson: { type: 'FeatureCollection', features } },
  });
  expect(r.status).toBe(200);
});

describe.skipIf(!python)('QGIS', () => {
  it('filters the layer on its time field: closed, open after, open before', async () => {
    const filters = [
      `"t" >= '2024-01-03T00:00:00Z' AND "t" <= '2024-01-05T00:00:00Z'`,
      `"t" >= '2024-01-09T00:00:00Z'`,
      `"t" <= '2024-01-02T00:00:00Z'`,
    ];
    const stdout = await runQgis(python!, script, [`${apiUrl()}/api/ogc`, name, 't', ...filters]);
    const out = JSON.parse(stdout);
    expect(out.valid).toBe(true);
    expect(out.fields.t).toBe('DateTime');
    expect(out.filters.map((f: any) => f.values)).toEqual([
      [2, 3, 4],
      [8, 9],
      [0, 1],
    ]);
    // QGIS sends each filter to the service as `datetime`, its open ends as year 0000 and 9999.
    expect(
      out.filters.map((f: any) =>
        f.itemRequests.map((u: string) => new URL(u, apiUrl()).searchParams.get('datetime')),
      ),
    ).toEqual([
      ['2024-01-03T00:00:00Z/2024-01-05T00:00:00Z'],
      ['2024-01-09T00:00:00Z/9999-12-31T00:00:00Z'],
      ['0000-01-01T00:00:00Z/2024-01-02T00:00:00Z'],
    ]);
  });
});
