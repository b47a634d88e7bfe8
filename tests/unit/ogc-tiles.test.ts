import { describe, expect, it } from 'vitest';
import { parseTilePath, tileMatrixSetLimits } from '#lib/ogc/tiles/tileAddress.ts';
import { requireTileMatrixSet, tileMatrix } from '#lib/ogc/tiles/tileMatrixSet.ts';
import { tileFieldTypes, tileTemplate } from '#lib/ogc/tiles/tileset.ts';

describe('parseTilePath (z/y/x)', () => {
  const ok: [Record<string, string>, { z: number; x: number; y: number }][] = [
    [
      { tileMatrix: '0', tileRow: '0', tileCol: '0' },
      { z: 0, x: 0, y: 0 },
    ],
    [
      { tileMatrix: '3', tileRow: '2', tileCol: '5' },
      { z: 3, x: 5, y: 2 },
    ],
    [
      { tileMatrix: '24', tileRow: '16777215', tileCol: '0' },
      { z: 24, x: 0, y: 16777215 },
    ],
  ];
  it.each(ok)('%o → %o', (path, want) => expect(parseTilePath(path)).toEqual(want));

  const bad: [Record<string, string>, string][] = [
    [{ tileMatrix: '25', tileRow: '0', tileCol: '0' }, 'tileMatrix'],
    [{ tileMatrix: '-1', tileRow: '0', tileCol: '0' }, 'tileMatrix'],
    [{ tileMatrix: '1e1', tileRow: '0', tileCol: '0' }, 'tileMatrix'],
    [{ tileMatrix: '2', tileRow: '4', tileCol: '0' }, 'tileRow'],
    [{ tileMatrix: '2', tileRow: ' 1', tileCol: '0' }, 'tileRow'],
    [{ tileMatrix: '2', tileRow: '0', tileCol: '4' }, 'tileCol'],
    [{ tileMatrix: '2', tileRow: '0', tileCol: '0x1' }, 'tileCol'],
    [{ tileMatrix: '2', tileRow: '0', tileCol: '' }, 'tileCol'],
  ];
  it.each(bad)('%o → 400 naming %s', (path, field) => {
    expect(() => parseTilePath(path)).toThrow(
      expect.objectContaining({ statusCode: 400, message: expect.stringContaining(`'${field}'`) }),
    );
  });
});

describe('tileMatrixSetLimits', () => {
  it('is undefined without an extent', () => {
    expect(tileMatrixSetLimits(null)).toBeUndefined();
    expect(tileMatrixSetLimits([0, 0, Number.NaN, 1])).toBeUndefined();
  });

  it('covers the whole world at z0 and the touched tiles, grown by the buffer, below', () => {
    const limits = tileMatrixSetLimits([10, 10, 20, 20])!;
    expect(limits).toHaveLength(25);
    expect(limits[0]).toEqual({
      tileMatrix: '0',
      minTileRow: 0,
      maxTileRow: 0,
      minTileCol: 0,
      maxTileCol: 0,
    });
    // z1: east half (lon 10..20), north half (lat 10..20).
    expect(limits[1]).toEqual({
      tileMatrix: '1',
      minTileRow: 0,
      maxTileRow: 0,
      minTileCol: 1,
      maxTileCol: 1,
    });
    // z8: columns by hand, floor((lon + 180) / 360 · 256) ± 1/64 of a tile.
    expect(limits[8].minTileCol).toBe(Math.floor(((10 + 180) / 360) * 256 - 1 / 64));
    expect(limits[8].maxTileCol).toBe(Math.floor(((20 + 180) / 360) * 256 + 1 / 64));
  });

  it('keeps a point on a tile edge inside on both sides (the buffer)', () => {
    // lon 0 is the edge between columns 0 and 1 at z1: both tiles carry the point.
    const [, z1] = tileMatrixSetLimits([0, 0, 0, 0])!;
    expect([z1.minTileCol, z1.maxTileCol]).toEqual([0, 1]);
    expect([z1.minTileRow, z1.maxTileRow]).toEqual([0, 1]);
  });

  it('clamps the poles and the antimeridian to the matrix', () => {
    const limits = tileMatrixSetLimits([-180, -90, 180, 90])!;
    for (const l of limits) {
      const n = 2 ** Number(l.tileMatrix);
      expect(l).toMatchObject({ minTileRow: 0, maxTileRow: n - 1, minTileCol: 0, maxTileCol: n - 1 });
    }
  });
});

describe('WebMercatorQuad', () => {
  it('halves the cell size at each tile matrix from 2π·6378137/256 m', () => {
    expect(tileMatrix(0).cellSize).toBeCloseTo((2 * Math.PI * 6378137) / 256, 9);
    expect(tileMatrix(5).cellSize * 32).toBeCloseTo(tileMatrix(0).cellSize, 9);
    expect(tileMatrix(0).scaleDenominator).toBeCloseTo(tileMatrix(0).cellSize / 0.00028, 6);
  });

  it('is the only tile matrix set', () => {
    expect(requireTileMatrixSet('WebMercatorQuad')).toBe('WebMercatorQuad');
    expect(() => requireTileMatrixSet('webmercatorquad')).toThrow(
      expect.objectContaining({ statusCode: 404 }),
    );
  });
});

describe('tileset documents', () => {
  it('types each property by its most common JSON type; objects and arrays are strings', () => {
    expect(
      tileFieldTypes({
        n: { number: 5, string: 1 },
        s: { string: 2 },
        b: { boolean: 1 },
        tie: { string: 3, number: 3 },
        o: { object: 4, number: 1 },
        a: { array: 1 },
      }),
    ).toEqual({
      a: { type: 'string' },
      b: { type: 'boolean' },
      n: { type: 'number' },
      o: { type: 'string' },
      s: { type: 'string' },
      tie: { type: 'number' },
    });
    expect(tileFieldTypes(null)).toEqual({});
  });

  it('templates z/y/x with the dataset version', () => {
    expect(tileTemplate('https://h/api/ogc', { name: 'a.b', version: 7 })).toBe(
      'https://h/api/ogc/collections/a.b/tiles/WebMercatorQuad/{tileMatrix}/{tileRow}/{tileCol}?v=7',
    );
  });
});
