import { afterEach, describe, expect, it } from 'vitest';
import { HttpError } from '#lib/errors.ts';
import {
  parseTileAddress as parseAddress,
  parseTileSource as parseSource,
  tileFilterBounds,
  tileSettings,
} from '#lib/geodatasets/read/tileParams.ts';
import { toVtGeometry } from '#lib/geodatasets/tiles/encode.ts';
import { tileCacheControl, tileCacheKey, tileEtag } from '#lib/geodatasets/tiles/tileCache.ts';
import { getInput } from '../fixtures/getInput.ts';

/** The request as GET /get's validator leaves it (its declaration), then the parser. */
const parseTileAddress = (q: Record<string, unknown>) => parseAddress(getInput(q));
const parseTileSource = (q: Record<string, unknown>) => parseSource(getInput(q));

import { etagMatches } from '#lib/http/middleware/conditionalRequest.ts';

function status(fn: () => unknown): { status: number; message: string } | undefined {
  try {
    fn();
    return undefined;
  } catch (e) {
    if (e instanceof HttpError) return { status: e.statusCode, message: e.message };
    throw e;
  }
}

describe('parseTileAddress', () => {
  it.each([
    [
      { z: '0', x: '0', y: '0' },
      { z: 0, x: 0, y: 0 },
    ],
    [
      { z: '1', x: '1', y: '1' },
      { z: 1, x: 1, y: 1 },
    ],
    [
      { z: 3, x: 7, y: 0 },
      { z: 3, x: 7, y: 0 },
    ],
    [
      { z: '24', x: String(2 ** 24 - 1), y: '0' },
      { z: 24, x: 2 ** 24 - 1, y: 0 },
    ],
    [
      { z: ' 2 ', x: '3', y: '3' },
      { z: 2, x: 3, y: 3 },
    ],
  ])('accepts %j', (q, want) => {
    expect(parseTileAddress(q)).toEqual(want);
  });

  it.each([
    [{ x: '0', y: '0' }, 'z'],
    [{ z: '', x: '0', y: '0' }, 'z'],
    [{ z: '25', x: '0', y: '0' }, 'z'],
    [{ z: '-1', x: '0', y: '0' }, 'z'],
    [{ z: '1.5', x: '0', y: '0' }, 'z'],
    [{ z: '1e3', x: '0', y: '0' }, 'z'],
    [{ z: ['1', '2'], x: '0', y: '0' }, 'z'],
    [{ z: '0', x: '1', y: '0' }, 'x'],
    [{ z: '0', x: '0', y: '1' }, 'y'],
    [{ z: '2', x: '4', y: '0' }, 'x'],
    [{ z: '2', x: '0', y: '4' }, 'y'],
    [{ z: '2', x: '-1', y: '0' }, 'x'],
    [{ z: '2', x: 'abc', y: '0' }, 'x'],
    [{ z: '2', x: '1', y: "1' or 1=1" }, 'y'],
    [{ z: '2', x: '1' }, 'y'],
    [{ z: '24', x: String(2 ** 24), y: '0' }, 'x'],
  ])('refuses %j with 400 naming %s', (q, field) => {
    const e = status(() => parseTileAddress(q));
    expect(e?.status).toBe(400);
    expect(e?.message).toMatch(new RegExp(`'${field}'`));
  });
});

describe('tileFilterBounds', () => {
  it('is the tile grown by 64/4096 of its size, clamped at ±180 and opened to the poles at the edges', () => {
    const [w, s, e, n] = tileFilterBounds({ z: 1, x: 1, y: 0 });
    expect(w).toBeCloseTo(-180 / 64, 9); // 0° minus 1/64 of a 180° tile
    expect(e).toBe(180);
    expect(n).toBe(90);
    // South edge: y = 1 + 1/64 tiles at z1 → latitude of Mercator fraction (1 + 1/64) / 2.
    const fy = (1 + 1 / 64) / 2;
    expect(s).toBeCloseTo((Math.atan(Math.sinh(Math.PI * (1 - 2 * fy))) * 180) / Math.PI, 9);
    expect(tileFilterBounds({ z: 0, x: 0, y: 0 })).toEqual([-180, -90, 180, 90]);
    const mid = tileFilterBounds({ z: 4, x: 8, y: 5 });
    expect(mid[0]).toBeCloseTo(-22.5 / 64, 9);
    expect(mid[2]).toBeCloseTo(22.5 + 22.5 / 64, 9);
  });
});

describe('parseTileSource', () => {
  it('splits comma-separated dotted paths, drops empties and duplicates, refuses bad paths', () => {
    expect(parseTileSource({})).toBeUndefined();
    expect(parseTileSource({ _source: '' })).toBeUndefined();
    expect(parseTileSource({ _source: 'a, b.c,,a' })).toEqual([['a'], ['b', 'c']]);
    expect(status(() => parseTileSource({ _source: "a'; drop table x" }))?.status).toBe(400);
    expect(
      status(() => parseTileSource({ _source: Array.from({ length: 51 }, (_, i) => `f${i}`).join(',') }))
        ?.status,
    ).toBe(400);
  });
});

describe('tile ETag', () => {
  const ds = { id: 7, table: 'gd_7_1', version: 3 };
  const q = { type: 'mvt', x: '1', y: '2', z: '3', filters: 'a+=+string+b' };

  it('is strong, quoted and stable for the same dataset state and request', () => {
    const e = tileEtag(ds, q);
    expect(e).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    expect(tileEtag(ds, { ...q })).toBe(e);
    // Parameter order and the ignored parameters do not matter.
    expect(
      tileEtag(ds, { filters: 'a+=+string+b', z: '3', y: '2', x: '1', type: 'mvt', stats: 'n', limit: '5' }),
    ).toBe(e);
    expect(tileEtag(ds, { ...q, layer: 'other-spelling' })).toBe(e);
  });

  it('changes with the dataset version, the dataset, the tile and every filter', () => {
    const e = tileEtag(ds, q);
    const variants = [
      tileEtag({ ...ds, version: 4 }, q),
      tileEtag({ ...ds, id: 8 }, q),
      tileEtag({ ...ds, table: 'gd_7_2' }, q),
      tileEtag(ds, { ...q, x: '2' }),
      tileEtag(ds, { ...q, y: '3' }),
      tileEtag(ds, { ...q, z: '4' }),
      tileEtag(ds, { ...q, filters: 'a+=+string+c' }),
      tileEtag(ds, { ...q, starttime: '2024-01-01' }),
      tileEtag(ds, { ...q, group_id: 'g' }),
      tileEtag(ds, { ...q, noDuplicates: 'true' }),
      tileEtag(ds, q, { maxAge: 300, maxFeatures: 10, maxBytes: 1000 }),
    ];
    expect(new Set([e, ...variants]).size).toBe(variants.length + 1);
  });

  it('keys on the declared tile parameters only: sorted names; paging, stats, layer and undeclared ones dropped', () => {
    expect(
      tileCacheKey({
        z: 1,
        filters: 'x',
        _source: 'y',
        limit: 3,
        offset: 1,
        limited: 'true',
        stats: 'n',
        layer: 'l',
        _: '123',
        b: 'x',
      } as Record<string, unknown>),
    ).toEqual([
      ['_source', 'y'],
      ['filters', 'x'],
      ['z', '1'],
    ]);
    // A jQuery cache buster does not change the ETag.
    const ds = { id: 1, table: 'gd_1_1', version: 1 };
    expect(tileEtag(ds, { z: 0, x: 0, y: 0, _: '1' } as Record<string, unknown>)).toBe(
      tileEtag(ds, { z: 0, x: 0, y: 0 }),
    );
  });

  it('If-None-Match: exact, lists, weak form and *', () => {
    const e = '"abc"';
    expect(etagMatches(undefined, e)).toBe(false);
    expect(etagMatches('"abc"', e)).toBe(true);
    expect(etagMatches('"x", "abc"', e)).toBe(true);
    expect(etagMatches('W/"abc"', e)).toBe(true);
    expect(etagMatches('*', e)).toBe(true);
    expect(etagMatches('"abcd"', e)).toBe(false);
    expect(etagMatches('abc', e)).toBe(false);
  });
});

describe('tile settings and Cache-Control', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  it('defaults to 300 s, 4096 features and 500,000 bytes; TILE_* override; never above 4 MiB', () => {
    delete process.env.TILE_MAX_AGE;
    delete process.env.TILE_MAX_FEATURES;
    delete process.env.TILE_MAX_BYTES;
    expect(tileSettings()).toEqual({ maxAge: 300, maxFeatures: 4096, maxBytes: 500_000 });
    process.env.TILE_MAX_AGE = '60';
    process.env.TILE_MAX_FEATURES = '100';
    process.env.TILE_MAX_BYTES = String(10 * 1024 * 1024);
    expect(tileSettings()).toEqual({ maxAge: 60, maxFeatures: 100, maxBytes: 4 * 1024 * 1024 });
    process.env.TILE_MAX_AGE = '0';
    expect(tileSettings().maxAge).toBe(0);
    process.env.TILE_MAX_AGE = 'soon';
    expect(tileSettings().maxAge).toBe(300);
  });

  it('is public under AUTH=none and private under AUTH=local', () => {
    process.env.AUTH = 'none';
    expect(tileCacheControl({ maxAge: 120, maxFeatures: 1, maxBytes: 1 })).toBe('public, max-age=120');
    process.env.AUTH = 'local';
    expect(tileCacheControl({ maxAge: 120, maxFeatures: 1, maxBytes: 1 })).toBe('private, max-age=120');
  });
});

describe('JS encoder geometry rules', () => {
  it('points, lines and polygons map to MVT types 1, 2, 3', () => {
    expect(toVtGeometry({ type: 'Point', coordinates: [1, 2] })).toEqual({ type: 1, geometry: [[1, 2]] });
    expect(
      toVtGeometry({
        type: 'MultiPoint',
        coordinates: [
          [1, 2],
          [3, 4],
        ],
      })?.geometry,
    ).toHaveLength(2);
    expect(
      toVtGeometry({
        type: 'LineString',
        coordinates: [
          [0, 0],
          [0, 0],
          [5, 5],
        ],
      }),
    ).toEqual({
      type: 2,
      geometry: [
        [
          [0, 0],
          [5, 5],
        ],
      ],
    });
    expect(
      toVtGeometry({
        type: 'LineString',
        coordinates: [
          [1, 1],
          [1, 1],
        ],
      }),
    ).toBeUndefined();
  });

  it('winds exterior rings clockwise on screen (positive area, y down) and holes the other way', () => {
    // Counter-clockwise on screen in y-down coordinates: must be reversed.
    const ccw = [
      [0, 0],
      [0, 10],
      [10, 10],
      [10, 0],
      [0, 0],
    ];
    const hole = [
      [2, 2],
      [4, 2],
      [4, 4],
      [2, 4],
      [2, 2],
    ];
    const g = toVtGeometry({ type: 'Polygon', coordinates: [ccw, hole] })!;
    expect(g.type).toBe(3);
    const area = (r: number[][]) =>
      r.reduce((s, p, i) => {
        const q = r[(i + 1) % r.length];
        return s + p[0] * q[1] - q[0] * p[1];
      }, 0);
    const rings = g.geometry as number[][][];
    expect(area(rings[0])).toBeGreaterThan(0);
    expect(area(rings[1])).toBeLessThan(0);
    // A collapsed polygon disappears; a collection keeps its highest dimension.
    expect(
      toVtGeometry({
        type: 'Polygon',
        coordinates: [
          [
            [1, 1],
            [1, 1],
            [1, 1],
            [1, 1],
          ],
        ],
      }),
    ).toBeUndefined();
    expect(
      toVtGeometry({
        type: 'GeometryCollection',
        geometries: [
          { type: 'Point', coordinates: [1, 1] },
          {
            type: 'LineString',
            coordinates: [
              [0, 0],
              [3, 3],
            ],
          },
        ],
      })?.type,
    ).toBe(2);
  });
});
