import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { streamedJson } from '#lib/answers/largeResponse.ts';
import { getDb } from '#lib/db/index.ts';
import { recreateGeodataset } from '#lib/geodatasets/write/write.ts';
import { toErrorResult } from '#lib/http/middleware/errorResponse.ts';
import { type RunningService, startService } from '../../local/devServer.ts';
import { points } from '../fixtures/uploads.ts';
import { type ApiResponse, call, uniqueName } from '../helpers.ts';

/**
 * Answers over the inline limit (docs/geodatasets-read.md, "Large answers"): a second service on the test
 * database with a small `MAX_INLINE_RESPONSE_BYTES` answers `get`, `intersect` and `search` with a 303 to
 * an object that is byte for byte the answer the first service (default limit, 5 MiB) gives inline.
 */

const LIMIT = 20_000;
const N = 2500;
const db = getDb();
const name = uniqueName('big_answers');
let small: RunningService;

beforeAll(async () => {
  await recreateGeodataset(
    db,
    { type: 'FeatureCollection', features: points(N) },
    { name, startProp: 't', groupIdProp: 'g' },
  );
  small = await startService({
    databaseUrl: inject('databaseUrl'),
    env: { LOG_LEVEL: 'warn', AUTH: 'none', MAX_INLINE_RESPONSE_BYTES: String(LIMIT) },
  });
}, 180_000);

afterAll(async () => {
  await small?.stop();
  const [row] = await db.sql`select table_name from geodatasets where name = ${name}`;
  if (row) {
    await db.sql.unsafe(`drop table if exists ${row.table_name as string}`);
    await db.sql`delete from geodatasets where name = ${name}`;
  }
});

const onSmall = (method: string, path: string, body?: unknown) =>
  call(method, path, { body, base: small.url });
const inline = async (method: string, path: string, body?: unknown) => {
  const r = await call(method, path, { body });
  expect(r.status).toBe(200);
  return r.text;
};

/** A 303 of the small service, and the text of the object its Location names. */
async function redirected(r: ApiResponse): Promise<string> {
  expect(r.status, r.text.slice(0, 300)).toBe(303);
  expect(r.headers.get('cache-control')).toBe('no-store');
  const location = r.headers.get('location')!;
  expect(r.body).toMatchObject({ status: 'success', url: location });
  expect(r.body.bytes).toBeGreaterThan(LIMIT);
  const object = await fetch(location);
  expect(object.status).toBe(200);
  const text = await object.text();
  expect(Buffer.byteLength(text)).toBe(r.body.bytes);
  return text;
}

const WORLD = {
  type: 'Polygon',
  coordinates: [
    [
      [-180, -90],
      [180, -90],
      [180, 90],
      [-180, 90],
      [-180, -90],
    ],
  ],
};

describe('answers over MAX_INLINE_RESPONSE_BYTES', () => {
  it('get: 303 to exactly the inline answer; 200 up to the limit, 303 one feature past it', async () => {
    const path = `/api/geodatasets/get?layer=${name}&type=geojson`;
    const whole = await redirected(await onSmall('GET', path));
    expect(whole).toBe(await inline('GET', path));
    expect(JSON.parse(whole).features.length).toBe(N);

    // The largest page that fits: its inline size is at most the limit, one more feature is over it.
    let k = 1;
    while (Buffer.byteLength(await inline('GET', `${path}&limit=${k + 1}`)) <= LIMIT) k++;
    const fits = await onSmall('GET', `${path}&limit=${k}`);
    expect(fits.status).toBe(200);
    expect(fits.text).toBe(await inline('GET', `${path}&limit=${k}`));
    expect(Buffer.byteLength(fits.text)).toBeLessThanOrEqual(LIMIT);
    const over = await onSmall('GET', `${path}&limit=${k + 1}`);
    expect(await redirected(over)).toBe(await inline('GET', `${path}&limit=${k + 1}`));
    expect(over.body.message).toMatch(/'limit' and 'after'/);
  });

  it('get: pages by key follow their next links to exactly the whole answer; offset still pages', async () => {
    const whole = JSON.parse(await inline('GET', `/api/geodatasets/get?layer=${name}`)).features;
    const seen: any[] = [];
    let next: string | undefined = `/api/geodatasets/get?layer=${name}&limit=1000&_source=g,t&after=0`;
    let pages = 0;
    while (next) {
      const r: ApiResponse = await call('GET', next);
      expect(r.status, r.text.slice(0, 200)).toBe(200);
      seen.push(...r.body.features);
      const link: { href: string } | undefined = r.body.links?.find((l: any) => l.rel === 'next');
      next = link ? new URL(link.href).pathname + new URL(link.href).search : undefined;
      if (link) {
        expect(new URL(link.href).searchParams.get('_source')).toBe('g,t');
        expect(new URL(link.href).searchParams.get('after')).toBe(String(seen.at(-1).properties._.idx));
      }
      pages++;
    }
    // 2500 features: pages of 1000, 1000, 500 (the last with no next link).
    expect(pages).toBe(3);
    const last = await call('GET', `/api/geodatasets/get?layer=${name}&limit=1000&after=2000`);
    expect(last.body.links).toEqual([]);
    expect(seen.map((f) => f.properties._.idx)).toEqual(whole.map((f: any) => f.properties._.idx));
    expect(seen[7].properties).toEqual({
      g: whole[7].properties.g,
      t: whole[7].properties.t,
      _: whole[7].properties._,
    });
    // MMGIS's offset paging answers as before, without links.
    const byOffset = await call('GET', `/api/geodatasets/get?layer=${name}&limit=10&offset=2490`);
    expect(byOffset.body.features.map((f: any) => f.properties._.idx)).toEqual(
      whole.slice(2490).map((f: any) => f.properties._.idx),
    );
    expect(byOffset.body.links).toBeUndefined();
    const bad = await call('GET', `/api/geodatasets/get?layer=${name}&after=-1`);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/after/);
  });

  it('intersect: 303 to exactly the inline answer, small answers inline', async () => {
    const body = { layer: name, intersect: WORLD };
    const text = await redirected(await onSmall('POST', '/api/geodatasets/intersect', body));
    expect(text).toBe(await inline('POST', '/api/geodatasets/intersect', body));
    const parsed = JSON.parse(text);
    expect(parsed.status).toBe('success');
    expect(parsed.body.type).toBe('FeatureCollection');
    expect(parsed.body.features.length).toBe(N);

    const point = { layer: name, intersect: points(1)[0].geometry };
    const few = await onSmall('POST', '/api/geodatasets/intersect', point);
    expect(few.status).toBe(200);
    expect(few.text).toBe(await inline('POST', '/api/geodatasets/intersect', point));
    expect(few.body.body.features.length).toBeGreaterThan(0);
  });

  it('search: 303 to exactly the inline answer, small answers inline', async () => {
    const body = { layer: name, key: 'g', value: 'g1' };
    const text = await redirected(await onSmall('POST', '/api/geodatasets/search', body));
    expect(text).toBe(await inline('POST', '/api/geodatasets/search', body));
    const parsed = JSON.parse(text);
    expect(parsed.status).toBe('success');
    expect(parsed.body.length).toBe(points(N).filter((p) => p.properties.g === 'g1').length);

    const last = { layer: name, last: true };
    const one = await onSmall('POST', '/api/geodatasets/search', last);
    expect(one.status).toBe(200);
    expect(one.text).toBe(await inline('POST', '/api/geodatasets/search', last));
    expect(one.body.body.map((f: any) => f.properties._.idx)).toEqual([N]);
  });

  it('documents the 303 of get, intersect and search in the OpenAPI document', async () => {
    const doc = (await call('GET', '/api/openapi.json')).body;
    for (const [route, method] of [
      ['/api/geodatasets/get', 'get'],
      ['/api/geodatasets/intersect', 'post'],
      ['/api/geodatasets/search', 'post'],
    ]) {
      const r303 = doc.paths[route][method].responses['303'];
      expect(r303?.description, `${method} ${route}`).toMatch(/MAX_INLINE_RESPONSE_BYTES/);
      expect(r303.content['application/json'].schema.required).toEqual(
        expect.arrayContaining(['url', 'bytes', 'expiresAt']),
      );
    }
  });
});

describe('streamedJson (the sink) against the S3 stand-in', () => {
  const env = ['S3_ENDPOINT', 'UPLOAD_BUCKET', 'MAX_INLINE_RESPONSE_BYTES'] as const;
  const saved = Object.fromEntries(env.map((k) => [k, process.env[k]]));
  let bucket = '';
  let s3: S3Client;

  beforeAll(async () => {
    const r = await onSmall('GET', `/api/geodatasets/get?layer=${name}&type=geojson`);
    bucket = new URL(r.headers.get('location')!).pathname.split('/')[1];
    Object.assign(process.env, {
      S3_ENDPOINT: small.s3Endpoint,
      UPLOAD_BUCKET: bucket,
      MAX_INLINE_RESPONSE_BYTES: String(LIMIT),
    });
    s3 = new S3Client({
      region: 'us-east-1',
      endpoint: small.s3Endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
  });

  afterAll(() => {
    for (const k of env) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
    s3?.destroy();
  });

  const objects = async () =>
    (await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'responses/' }))).KeyCount ?? 0;

  it('uploads an answer of several parts, in order', async () => {
    // 12 MiB in 100 KiB pieces of non-ASCII text: three parts (5 MiB, 5 MiB, the rest).
    const piece = (i: number) => `${String(i).padStart(6, '0')}火星${'x'.repeat(100 * 1024 - 12)}`;
    async function* pieces() {
      yield '[';
      for (let i = 0; i < 120; i++) yield `${i ? ',' : ''}"${piece(i)}"`;
      yield ']';
    }
    const res = await streamedJson(pieces());
    expect(res.statusCode).toBe(303);
    const url = res.headers!.Location;
    const text = await (await fetch(url)).text();
    const parsed = JSON.parse(text) as string[];
    expect(parsed.length).toBe(120);
    expect(parsed).toEqual(parsed.map((_, i) => piece(i)));
    expect((res.body as { bytes: number }).bytes).toBe(Buffer.byteLength(text));
  });

  it('fails with the producer error and leaves no object when the answer breaks half-way', async () => {
    const before = await objects();
    async function* broken() {
      for (let i = 0; i < 10; i++) yield 'y'.repeat(10_000);
      throw new Error('the database went away');
    }
    await expect(streamedJson(broken())).rejects.toThrow('the database went away');
    expect(await objects()).toBe(before);
  });

  it('a statement timeout half-way through a multipart answer stays the 503 it is, and leaves no object', async () => {
    const before = await objects();
    async function* timedOut() {
      // 7 MiB: the multipart upload has begun (one part sent) when the database gives up.
      for (let i = 0; i < 70; i++) yield 'z'.repeat(100 * 1024);
      throw Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' });
    }
    const err = await streamedJson(timedOut()).catch((e) => e);
    expect(err.code).toBe('57014');
    expect(toErrorResult(err, 'test').statusCode).toBe(503);
    expect(await objects()).toBe(before);
  });

  it('a failed S3 call answers 503 in our shape', async () => {
    process.env.UPLOAD_BUCKET = 'no-such-bucket-for-answers';
    try {
      async function* big() {
        for (let i = 0; i < 3; i++) yield 'w'.repeat(LIMIT);
      }
      const err = await streamedJson(big()).catch((e) => e);
      const result = toErrorResult(err, 'test');
      expect(result.statusCode).toBe(503);
      expect(JSON.parse(result.body)).toMatchObject({
        status: 'failure',
        message: expect.stringMatching(/storage/),
      });
    } finally {
      process.env.UPLOAD_BUCKET = bucket;
    }
  });

  it('answers inline, byte for byte, at exactly the limit; one byte more is 303', async () => {
    async function* pieces(extra: string) {
      yield '{"a":"';
      yield 'é'.repeat((LIMIT - 8) / 2);
      yield `${extra}"}`;
    }
    const res = await streamedJson(pieces(''));
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe(`{"a":"${'é'.repeat((LIMIT - 8) / 2)}"}`);
    expect(Buffer.byteLength(res.body as string)).toBe(LIMIT);
    expect((await streamedJson(pieces('x'))).statusCode).toBe(303);
  });
});
