import { describe, expect, it } from 'vitest';
import { validateFeature } from '#lib/geodatasets/write/validateGeometry.ts';

/** A coordinate within floating-point rounding of the valid range is the range's edge (docs/contract.md). */
describe('validateFeature: coordinates at the edge of the range', () => {
  const line = (coordinates: number[][]) => ({
    type: 'Feature',
    geometry: { type: 'LineString', coordinates },
    properties: null,
  });

  it('clamps a longitude or latitude past ±180 / ±90 by a rounding error to the edge', () => {
    const { geometry } = validateFeature(
      line([
        [180.00000000000006, 70],
        [-180.0000000001, -90.0000000001],
        [10, 90.00000000000001],
      ]),
      0,
    );
    expect(geometry.coordinates).toEqual([
      [180, 70],
      [-180, -90],
      [10, 90],
    ]);
  });

  it('still refuses a coordinate further out', () => {
    expect(() =>
      validateFeature(
        line([
          [180.001, 0],
          [0, 0],
        ]),
        3,
      ),
    ).toThrow(/Feature 3: geometry.coordinates\[0\] has longitude 180.001 outside \[-180, 180\]/);
    expect(() =>
      validateFeature(
        line([
          [0, 0],
          [0, -90.00001],
        ]),
        0,
      ),
    ).toThrow(/latitude -90.00001 outside/);
  });
});
