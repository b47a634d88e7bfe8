import { describe, expect, it } from 'vitest';
import { JobInputError } from '#lib/jobs/inputError.ts';
import { GeojsonFileReader } from '#lib/uploads/geojsonFileReader.ts';

/** The text as byte chunks of `size` (cutting through multi-byte characters and escapes). */
async function* chunks(text: string, size: number) {
  const buf = Buffer.from(text);
  for (let i = 0; i < buf.length; i += size) yield buf.subarray(i, i + size);
}

async function read(text: string, size: number) {
  const out: unknown[] = [];
  for await (const f of new GeojsonFileReader(chunks(text, size))) out.push(f);
  return out;
}

async function error(text: string, size = 7) {
  try {
    await read(text, size);
  } catch (e) {
    return e as JobInputError;
  }
  throw new Error('no error');
}

const SIZES = [1, 2, 3, 5, 13, 64, 1 << 20];

const tricky = {
  type: 'FeatureCollection',
  name: 'quote " backslash \\ brace { bracket [',
  crs: { type: 'name', properties: { name: 'urn:ogc:def:crs:OGC:1.3:CRS84' } },
  features: [
    {
      type: 'Feature',
      geometry: { type: 'Point', coordinates: [1, 2] },
      properties: { a: 'x\\"}]', b: [1, { c: '火星' }] },
    },
    { type: 'Feature', geometry: null, properties: { 'k"ey': 'é\n\t', e: '\\' } },
    {
      type: 'Feature',
      geometry: {
        type: 'LineString',
        coordinates: [
          [0, 0],
          [1, 1],
        ],
      },
      properties: null,
    },
  ],
  bbox: [0, 0, 1, 2],
};

describe('GeojsonFileReader', () => {
  it.each(SIZES)('hands out every feature whatever the chunk size (%i bytes)', async (size) => {
    expect(await read(JSON.stringify(tricky), size)).toEqual(tricky.features);
    expect(await read(JSON.stringify(tricky, null, 2), size)).toEqual(tricky.features);
    expect(await read(`\uFEFF ${JSON.stringify(tricky)}\n`, size)).toEqual(tricky.features);
  });

  it.each([
    [
      'features before type',
      '{"features":[{"a":1},2,"s",null,[3]],"type":"FeatureCollection"}',
      [{ a: 1 }, 2, 's', null, [3]],
    ],
    ['empty features', '{"type":"FeatureCollection","features":[ ]}', []],
    [
      'a single Feature',
      '{"type":"Feature","geometry":null,"properties":{"features":1}}',
      [{ type: 'Feature', geometry: null, properties: { features: 1 } }],
    ],
  ])('%s', async (_, text, expected) => {
    for (const size of SIZES) expect(await read(text as string, size)).toEqual(expected);
  });

  it('counts features and bytes, and knows where each recent feature starts (in bytes)', async () => {
    const text = JSON.stringify(tricky);
    const s = new GeojsonFileReader(chunks(text, 5));
    const seen: number[] = [];
    for await (const _ of s) seen.push(s.count);
    expect(seen).toEqual([1, 2, 3]);
    expect(s.bytesRead).toBe(Buffer.byteLength(text));
    const at = (f: unknown) => Buffer.byteLength(text.slice(0, text.indexOf(JSON.stringify(f))));
    expect(s.byteOffsetOf(0)).toBe(at(tricky.features[0]));
    expect(s.byteOffsetOf(2)).toBe(at(tricky.features[2]));
    expect(s.byteOffsetOf(3)).toBeUndefined();
  });

  it.each([
    [
      '{"type":"FeatureCollection","features":[{"a":1},{"a":tru}]}',
      /^Feature 1 \(at byte 48\): not valid JSON/,
    ],
    ['{"type":"FeatureCollection","features":[{"a":1},{"a":', /ends inside feature 1/],
    ['{"type":"FeatureCollection","features":[{"a":1}', /ends inside feature 1/],
    ['{"type":"FeatureCollection","features":{"a":1}}', /features must be an array/],
    ['{"type":"FeatureCollection"}', /features must be an array/],
    ['{"type":"Topology","features":[]}', /FeatureCollection or a Feature \(got type "Topology"\)/],
    ['[{"type":"Feature"}]', /must hold a GeoJSON FeatureCollection object/],
    ['{"type":"FeatureCollection","features":[]} x', /FeatureCollection object/],
    ['{"type":"FeatureCollection","features":[],}', /not valid JSON outside its features/],
    ['', /empty/],
  ])('refuses %s', async (text, message) => {
    const e = await error(text);
    expect(e).toBeInstanceOf(JobInputError);
    expect(e.message).toMatch(message);
  });

  it('names the byte offset, not the character offset', async () => {
    const text = '{"type":"FeatureCollection","features":[{"s":"火星"},{"s":"é"},{"s":x}]}';
    const e = await error(text, 3);
    const at = Buffer.byteLength(text.slice(0, text.indexOf('{"s":x')));
    expect(at).not.toBe(text.indexOf('{"s":x'));
    expect(e.message).toContain(`Feature 2 (at byte ${at})`);
    expect(e.detail).toEqual({ featureIndex: 2, byteOffset: at });
  });

  it('stops at maxBytes', async () => {
    const text = JSON.stringify(tricky);
    const s = new GeojsonFileReader(chunks(text, 16), { maxBytes: 100 });
    let e: any;
    try {
      for await (const _ of s);
    } catch (x) {
      e = x;
    }
    expect(e).toBeInstanceOf(JobInputError);
    expect(e.message).toMatch(/larger than the upload limit of 100 bytes/);
    expect(s.bytesRead).toBeLessThanOrEqual(116);
  });
});
