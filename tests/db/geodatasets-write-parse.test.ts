import { describe, expect, it } from 'vitest';
import { toFieldStatsEntry } from '#lib/geodatasets/fieldStats.ts';
import { numericValue } from '#lib/geodatasets/numeric.ts';
import { readPath, splitProps, toIdText, toTimestamp } from '#lib/geodatasets/write/derived.ts';
import { featureSource } from '#lib/geodatasets/write/lazyGeojson.ts';
import { validateFeature } from '#lib/geodatasets/write/validateGeometry.ts';
import { parseGeojsonBody, parseRecreateBody, splitStartEnd } from '#lib/geodatasets/write/writeRequest.ts';

describe('derived columns', () => {
  it.each([
    ['2024-01-02T03:04:05Z', '2024-01-02T03:04:05.000Z'],
    ['2024-01-02T03:04:05.123456+02:00', '2024-01-02T01:04:05.123Z'],
    ['2024-01-02T03:04:05-0130', '2024-01-02T04:34:05.000Z'],
    ['2024-01-02 03:04', '2024-01-02T03:04:00.000Z'],
    ['2024-01-02', '2024-01-02T00:00:00.000Z'],
    [0, '1970-01-01T00:00:00.000Z'],
    [1704164645000, '2024-01-02T03:04:05.000Z'],
    ['1704164645000', null], // strings of digits are not epoch times
    ['2024-02-30', null],
    ['yesterday', null],
    ['01/02/2024', null],
    [true, null],
    [null, null],
    [{ t: 1 }, null],
    [Number.NaN, null],
    [1e20, null],
  ])('toTimestamp(%j) = %j', (v, expected) => {
    expect(toTimestamp(v)).toBe(expected);
  });

  it('reads exact keys first, then dot paths', () => {
    const p = { a: { b: { c: 5 } }, 'a.b': 'exact', x: null };
    expect(readPath(p, 'a.b')).toBe('exact');
    expect(readPath(p, 'a.b.c')).toBe(5);
    expect(readPath(p, 'a.z.c')).toBeUndefined();
    expect(readPath(p, 'x')).toBeNull();
  });

  it('joins comma-separated id props in order', () => {
    const p = { a: 'x', b: 2, c: null, o: { k: 1 } };
    expect(toIdText(p, splitProps('a, b'))).toBe('x,2');
    expect(toIdText(p, splitProps('b,a'))).toBe('2,x');
    expect(toIdText(p, splitProps('a,c'))).toBe('x,');
    expect(toIdText(p, splitProps('c,zz'))).toBeNull();
    expect(toIdText(p, ['o'])).toBe('{"k":1}');
    expect(splitProps(' ,a,,b ')).toEqual(['a', 'b']);
  });
});

describe('numeric rule and derived stats', () => {
  it.each([
    [12, 12],
    ['12', 12],
    ['-3.5e2', -350],
    ['.5', 0.5],
    ['5.', 5],
    ['12abc', undefined],
    ['', undefined],
    [' 5', undefined],
    ['+5', undefined],
    ['NaN', undefined],
    ['Infinity', undefined],
    [true, undefined],
    [null, undefined],
    [[1], undefined],
  ])('numericValue(%j) = %j', (v, expected) => {
    expect(numericValue(v)).toBe(expected);
  });

  it('derives nullCount, avg and the population stddev', () => {
    // values 2, 4, 4, 4, 5, 5, 7, 9 (population stddev 2) in 10 features
    const e = toFieldStatsEntry({ type: 'number', min: 2, max: 9, sum: 40, sumsq: 232, count: 8 }, 10);
    expect(e).toEqual({
      type: 'number',
      min: 2,
      max: 9,
      sum: 40,
      sumsq: 232,
      count: 8,
      nullCount: 2,
      avg: 5,
      stddev: 2,
    });
  });
});

describe('validation', () => {
  const f = (geometry: unknown, properties: unknown = {}) => ({ type: 'Feature', geometry, properties });
  it.each([
    [f(null), /Feature 3: geometry is missing/],
    [{ type: 'Feature', properties: {} }, /geometry is missing/],
    [f({ type: 'Point', coordinates: [181, 0] }), /longitude 181/],
    [f({ type: 'Point', coordinates: [0, -90.5] }), /latitude -90.5/],
    [f({ type: 'Point', coordinates: [0] }), /position/],
    [f({ type: 'Point', coordinates: ['1', 2] }), /non-number/],
    [f({ type: 'LineString', coordinates: [[0, 0]] }), /at least 2/],
    [
      f({
        type: 'Polygon',
        coordinates: [
          [
            [0, 0],
            [1, 0],
            [1, 1],
            [0, 1],
          ],
        ],
      }),
      /not closed/,
    ],
    [f({ type: 'Circle', coordinates: [0, 0] }), /not a GeoJSON geometry type/],
    [f({ type: 'Point', coordinates: [0, 0] }, [1]), /properties must be an object/],
    [{ type: 'feature', geometry: { type: 'Point', coordinates: [0, 0] } }, /expected "Feature"/],
    ['x', /not an object/],
  ])('refuses %j', (feature, message) => {
    expect(() => validateFeature(feature, 3)).toThrow(message);
  });

  it('accepts every geometry type and rewinds polygons to the right-hand rule', () => {
    const ring = [
      [0, 0],
      [0, 1],
      [1, 1],
      [1, 0],
      [0, 0],
    ]; // clockwise
    const v = validateFeature(f({ type: 'Polygon', coordinates: [ring.map((p) => [...p])] }, null), 0);
    expect(v.properties).toEqual({});
    expect((v.geometry.coordinates as number[][][])[0]).toEqual([...ring].reverse());
    for (const g of [
      { type: 'MultiPoint', coordinates: [[0, 0, 5]] },
      {
        type: 'MultiLineString',
        coordinates: [
          [
            [0, 0],
            [1, 1],
          ],
        ],
      },
      { type: 'MultiPolygon', coordinates: [[ring]] },
      { type: 'GeometryCollection', geometries: [{ type: 'Point', coordinates: [1, 1] }] },
    ]) {
      expect(() => validateFeature(f(g), 0)).not.toThrow();
    }
  });
});

describe('request bodies', () => {
  it('reads features lazily from text and names malformed ones', () => {
    const text = '{"type":"FeatureCollection","features":[{"type":"Feature","geometry":null},{"bad" 1}]}';
    const it = featureSource(text)[Symbol.iterator]();
    expect(it.next().value).toEqual({ type: 'Feature', geometry: null });
    expect(() => it.next()).toThrow(/Feature 1: not valid JSON/);
    expect(() => featureSource('{"type":"FeatureCollection","features":[')).toThrow(/not valid JSON/);
    expect(() => featureSource('{"type":"FeatureCollection"} x')).toThrow(/after the JSON/);
    expect(() => featureSource('{"type":"Topology"}')).toThrow(/FeatureCollection or a Feature/);
    expect(() => featureSource({ type: 'FeatureCollection', features: {} })).toThrow(/array/);
  });

  it('POST /recreate: body members win over the GeoJSON members; a string geojson is read', () => {
    const geo = { type: 'FeatureCollection', features: [], startProp: 'gs', endProp: 'ge' };
    const r = parseRecreateBody(
      JSON.stringify({ name: 'n', geojson: geo, startProp: 'bs', action: 'append' }),
    );
    expect(r.action).toBe('append');
    expect(r.opts).toMatchObject({ name: 'n', startProp: 'bs', endProp: 'ge' });
    const s = parseRecreateBody(JSON.stringify({ name: 'n', geojson: JSON.stringify(geo) }));
    expect(s.opts.startProp).toBe('gs');
    expect(() => parseRecreateBody('{"name":"n"}')).toThrow(/'geojson' is required/);
  });

  it('append/recreate by name: GeoJSON members, then the URL pair, then the query', () => {
    const text = JSON.stringify({ type: 'FeatureCollection', features: [], groupIdProp: 'bg' });
    const r = parseGeojsonBody(
      'append',
      text,
      { name: 'n', start_end_prop: 'ps,pe' },
      {
        start_prop: 'qs',
        group_id_prop: 'qg',
        feature_id_prop: 'qf',
        filename: 'f.json',
      },
    );
    expect(r.opts).toEqual({
      name: 'n',
      startProp: 'ps',
      endProp: 'pe',
      groupIdProp: 'bg',
      featureIdProp: 'qf',
      filename: 'f.json',
    });
    expect(splitStartEnd(',end')).toEqual({ start: undefined, end: 'end' });
    expect(splitStartEnd('a%2Cb')).toEqual({ start: 'a', end: 'b' });
  });
});
