import { describe, expect, it } from 'vitest';
import { HttpError } from '#lib/errors.ts';
import { mergeExtents } from '#lib/geodatasets/extents.ts';
import { openApi30, schemaTo30 } from '#lib/http/openapi/openapi30.ts';
import { queryables } from '#lib/ogc/collections.ts';
import { CRS84, EPSG3857, EPSG4326, parseBbox, parseCrs } from '#lib/ogc/crs.ts';
import { parseDatetime } from '#lib/ogc/datetime.ts';
import { chooseFormat } from '#lib/ogc/request.ts';

const status = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return e instanceof HttpError ? e.statusCode : -1;
  }
  return 0;
};

describe('OpenAPI 3.1 → 3.0 (lib/http/openapi/openapi30.ts)', () => {
  it('renders 2020-12 keywords in their 3.0 spelling', () => {
    expect(schemaTo30({ type: ['string', 'null'], maxLength: 3 })).toEqual({
      type: 'string',
      maxLength: 3,
      nullable: true,
    });
    expect(schemaTo30({ type: ['string', 'integer'] })).toEqual({
      anyOf: [{ type: 'string' }, { type: 'integer' }],
    });
    expect(schemaTo30({ const: 'Feature' })).toEqual({ enum: ['Feature'] });
    expect(schemaTo30({ type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 5 })).toEqual({
      type: 'number',
      minimum: 0,
      exclusiveMinimum: true,
      maximum: 5,
      exclusiveMaximum: true,
    });
    expect(schemaTo30({ type: 'string', examples: ['a', 'b'] })).toEqual({ type: 'string', example: 'a' });
    expect(schemaTo30({ type: 'string', contentMediaType: 'application/x-protobuf' })).toEqual({
      type: 'string',
      format: 'binary',
    });
    expect(schemaTo30({ enum: ['a', null] })).toEqual({ enum: ['a', null], nullable: true });
    expect(schemaTo30({ type: 'null' })).toEqual({ nullable: true, enum: [null] });
    expect(
      schemaTo30({
        type: 'object',
        properties: { a: { type: ['object', 'null'], properties: { b: { const: 1 } } } },
        items: [{ type: 'string' }],
        additionalProperties: { type: ['integer', 'null'] },
        $schema: 'x',
        prefixItems: [],
        patternProperties: {},
      }),
    ).toEqual({
      type: 'object',
      properties: { a: { type: 'object', nullable: true, properties: { b: { enum: [1] } } } },
      items: { type: 'string' },
      additionalProperties: { type: 'integer', nullable: true },
    });
  });

  it('converts the document: version, parameters, bodies, responses, components; the input unchanged', () => {
    const doc = {
      openapi: '3.1.0',
      jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
      info: { title: 't', version: '1', summary: 's' },
      paths: {
        '/x': {
          get: {
            parameters: [{ name: 'q', in: 'query', schema: { type: ['string', 'null'] } }],
            responses: {
              200: { description: 'ok', content: { 'application/json': { schema: { const: 1 } } } },
            },
          },
          post: {
            requestBody: { content: { 'application/json': { schema: { type: ['object', 'null'] } } } },
            responses: {},
          },
        },
      },
      components: { schemas: { F: { properties: { status: { const: 'failure' } } } } },
    };
    const before = JSON.stringify(doc);
    const out = openApi30(doc) as any;
    expect(JSON.stringify(doc)).toBe(before);
    expect(out.openapi).toBe('3.0.3');
    expect(out.jsonSchemaDialect).toBeUndefined();
    expect(out.info).toEqual({ title: 't', version: '1' });
    expect(out.paths['/x'].get.parameters[0].schema).toEqual({ type: 'string', nullable: true });
    expect(out.paths['/x'].get.responses[200].content['application/json'].schema).toEqual({ enum: [1] });
    expect(out.paths['/x'].post.requestBody.content['application/json'].schema).toEqual({
      type: 'object',
      nullable: true,
    });
    expect(out.components.schemas.F.properties.status).toEqual({ enum: ['failure'] });
  });
});

describe('OGC API parameters', () => {
  it('crs: the three supported URIs and short forms; anything else 400', () => {
    expect(parseCrs(undefined, 'crs')).toBe(CRS84);
    expect(parseCrs('http://www.opengis.net/def/crs/EPSG/0/4326', 'crs')).toBe(EPSG4326);
    expect(parseCrs('[EPSG:3857]', 'crs')).toBe(EPSG3857);
    expect(parseCrs('OGC:CRS84', 'crs')).toBe(CRS84);
    expect(status(() => parseCrs('EPSG:2056', 'crs'))).toBe(400);
  });

  it('bbox: axis order of the CRS, heights ignored, Web Mercator inverted, bad boxes 400', () => {
    expect(parseBbox('1,2,3,4', CRS84)).toEqual({ minx: 1, miny: 2, maxx: 3, maxy: 4 });
    expect(parseBbox('1,2,0,3,4,9', CRS84)).toEqual({ minx: 1, miny: 2, maxx: 3, maxy: 4 });
    expect(parseBbox('2,1,4,3', EPSG4326)).toEqual({ minx: 1, miny: 2, maxx: 3, maxy: 4 });
    const m = parseBbox('0,0,20037508.342789244,20037508.342789244', EPSG3857);
    expect(m.maxx).toBeCloseTo(180, 9);
    expect(m.maxy).toBeCloseTo(85.0511287798, 9);
    // West east of east: the box across the antimeridian (Part 1, 7.15.3), answered as given.
    expect(parseBbox('3,2,1,4', CRS84)).toEqual({ minx: 3, miny: 2, maxx: 1, maxy: 4 });
    for (const bad of ['1,2,3', '1,2,3,4,5', 'a,b,c,d', '1,,3,4', '1,4,3,2', '0,-91,1,1']) {
      expect(
        status(() => parseBbox(bad, CRS84)),
        bad,
      ).toBe(400);
    }
  });

  it('datetime: instants, days, closed and open intervals; others 400', () => {
    expect(parseDatetime('2024-01-02T03:04:05Z')).toEqual({
      start: '2024-01-02T03:04:05.000Z',
      end: '2024-01-02T03:04:05.000Z',
    });
    expect(parseDatetime('2024-01-02T03:04:05+01:00').start).toBe('2024-01-02T02:04:05.000Z');
    expect(parseDatetime('2024-01-02')).toEqual({
      start: '2024-01-02T00:00:00.000Z',
      end: '2024-01-02T23:59:59.999Z',
    });
    expect(parseDatetime('../2024-01-02T00:00:00Z')).toEqual({ end: '2024-01-02T00:00:00.000Z' });
    expect(parseDatetime('2024-01-02T00:00:00Z/')).toEqual({ start: '2024-01-02T00:00:00.000Z' });
    expect(parseDatetime('../..')).toEqual({});
    // RFC 3339: a leap second is the next minute's first second; `t`/`z` in either case; a fraction.
    expect(parseDatetime('2016-12-31T23:59:60Z').start).toBe('2017-01-01T00:00:00.000Z');
    expect(parseDatetime('2016-12-31T23:59:60.5+00:00').start).toBe('2017-01-01T00:00:00.500Z');
    expect(parseDatetime('2024-01-02t03:04:05.123456z').start).toBe('2024-01-02T03:04:05.123Z');
    expect(parseDatetime('2024-01-02T03:04:05-23:59').start).toBe('2024-01-03T03:03:05.000Z');
    // QGIS's open ends: year 0000 (RFC 3339 allows it; the database does not) and 9999.
    expect(parseDatetime('0000-01-01T00:00:00Z/2024-01-02T00:00:00Z')).toEqual({
      start: undefined,
      end: '2024-01-02T00:00:00.000Z',
    });
    expect(parseDatetime('2024-01-09T00:00:00Z/9999-12-31T23:59:59-05:00')).toEqual({
      start: '2024-01-09T00:00:00.000Z',
      end: undefined,
    });
    for (const bad of [
      '2024-01-02T24:00:00Z',
      '2024-01-02T23:59:61Z',
      '2024-01-02T00:00:00+24:00',
      '2024-01-02T00:00:00+00:60',
      '2024-01-02T00:00:00+0100',
      '0000-01-01',
      '2023-02-29T00:00:00Z',
      '',
      '..',
      'now',
      '2024-02-30',
      '2024-13-01',
      '2024-01-02T25:00:00Z',
      '2024-01-02T00:00:00',
      'a/b',
      '1/2/3',
      '2024-02-01/2024-01-01',
    ]) {
      expect(
        status(() => parseDatetime(bad)),
        bad,
      ).toBe(400);
    }
  });

  it('format: f wins, then a browser’s Accept; JSON otherwise', () => {
    expect(chooseFormat('html', { accept: 'application/json' })).toBe('html');
    expect(chooseFormat(undefined, { Accept: 'text/html,application/xhtml+xml,*/*;q=0.8' })).toBe('html');
    expect(chooseFormat(undefined, { accept: 'application/geo+json, application/json' })).toBe('json');
    expect(chooseFormat(undefined, { accept: 'application/json, text/html;q=0.5' })).toBe('json');
    expect(chooseFormat(undefined, {})).toBe('json');
    expect(status(() => chooseFormat('xml', {}))).toBe(400);
  });

  it('queryables: top-level properties by their majority type; reserved and nested names left out', () => {
    const q = queryables({
      bbox: null,
      timeMin: null,
      timeMax: null,
      propertyTypes: {
        n: { number: 5, string: 1 },
        s: { string: 3 },
        b: { boolean: 2 },
        o: { object: 4 },
        limit: { number: 1 },
        'a.b': { number: 1 },
      },
    });
    expect([...q]).toEqual([
      ['b', 'boolean'],
      ['n', 'number'],
      ['s', 'string'],
    ]);
  });

  it('extents widen on append', () => {
    const a = {
      bbox: [0, 0, 1, 1] as [number, number, number, number],
      timeMin: '2024-01-01T00:00:00.000Z',
      timeMax: null,
      propertyTypes: { n: { number: 2 } },
    };
    const b = {
      bbox: [-1, 0.5, 0.5, 3] as [number, number, number, number],
      timeMin: null,
      timeMax: '2025-01-01T00:00:00.000Z',
      propertyTypes: { n: { number: 1, string: 1 }, s: { string: 1 } },
    };
    expect(mergeExtents(a, b)).toEqual({
      bbox: [-1, 0, 1, 3],
      timeMin: '2024-01-01T00:00:00.000Z',
      timeMax: '2025-01-01T00:00:00.000Z',
      propertyTypes: { n: { number: 3, string: 1 }, s: { string: 1 } },
    });
  });
});
