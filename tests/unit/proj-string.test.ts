import { describe, expect, it } from 'vitest';
import { HttpError } from '#lib/errors.ts';
import { assertProjString } from '#lib/rasters/projWkt.ts';

describe('assertProjString', () => {
  it.each([
    ['+proj=longlat +datum=WGS84 +no_defs', '+proj=longlat +datum=WGS84 +no_defs'],
    ['  +proj=eqc +lon_0=180 +a=3396190 ', '+proj=eqc +lon_0=180 +a=3396190'],
    // jQuery's `+` for a space, left undecoded by a gateway
    ['+proj=eqc++lon_0=180++units=m', '+proj=eqc +lon_0=180 +units=m'],
    ['+proj=utm +zone=33 +towgs84=0,0,0,0,0,0,0', '+proj=utm +zone=33 +towgs84=0,0,0,0,0,0,0'],
  ])('reads %j as %j', (input, expected) => {
    expect(assertProjString(input)).toBe(expected);
  });

  it.each([
    [undefined],
    [''],
    ['EPSG:4326'],
    ['/etc/passwd'],
    ['+init=epsg:4326'],
    ['+proj=longlat +init=epsg:4326'],
    ['proj=longlat'],
    ['+proj=longlat; rm -rf /'],
    [`+proj=longlat ${'+x=1 '.repeat(500)}`],
  ])('refuses %j with 400 naming proj4', (input) => {
    expect(() => assertProjString(input)).toThrow(HttpError);
    expect(() => assertProjString(input)).toThrow(/proj4/);
  });
});
