import { describe, expect, inject, it } from 'vitest';
import { getDb } from '#lib/db/index.ts';
import { findDataset } from '#lib/geodatasets/catalog.ts';
import {
  admin,
  fcText,
  points,
  putFile,
  readAll,
  requestUpload,
  upload,
  waitJob,
} from '../fixtures/uploads.ts';
import { apiUrlLocal, call, uniqueName } from '../helpers.ts';

const db = getDb();
const OPTS = { startProp: 't', groupIdProp: 'g', featureIdProp: 'n' };

/** The rows as stored (derived columns included), for comparing two datasets. */
async function stored(name: string) {
  const ds = (await findDataset(db.sql, name))!;
  return db.sql.unsafe(
    `select id, ST_AsText(geom) as wkt, properties, start_time, end_time, group_id, feature_id
     from ${ds.table} order by id`,
  );
}

async function entry(name: string) {
  const ds = (await findDataset(db.sql, name))!;
  return {
    numFeatures: ds.numFeatures,
    fieldStats: ds.fieldStats,
    startProp: ds.startProp,
    groupIdProp: ds.groupIdProp,
    featureIdProp: ds.featureIdProp,
  };
}

/** Invokes the ingest function directly on serverless-offline's Lambda port (as AWS's retries would). */
async function invokeIngest(event: unknown) {
  const res = await fetch(
    `http://127.0.0.1:${inject('lambdaPort')}/2015-03-31/functions/mmgis-dev-jobIngestUpload/invocations`,
    { method: 'POST', body: JSON.stringify(event) },
  );
  return res.json() as Promise<any>;
}

/** The bucket and key a presigned URL names (path-style: /<bucket>/<key>). */
function bucketKey(url: string) {
  const [, bucket, ...key] = new URL(url).pathname.split('/');
  return { bucket, key: key.join('/') };
}

describe('uploads: presign → PUT → ObjectCreated → ingest job', () => {
  it('ingests a file exactly as recreate does, shows progress fields, deletes the object', async () => {
    const feats = points(2500);
    const text = fcText(feats);
    const name = uniqueName('upl');
    const u = await requestUpload({ name, ...OPTS, filename: 'pts.geojson', size: Buffer.byteLength(text) });
    expect(u.job.state).toBe('awaiting_upload');
    expect(u.upload.method).toBe('PUT');
    expect(Date.parse(u.upload.expiresAt) - Date.now()).toBeGreaterThan(14 * 60_000);
    expect(Date.parse(u.upload.expiresAt) - Date.now()).toBeLessThanOrEqual(15 * 60_000);
    expect(u.upload.headers).toEqual({ 'Content-Length': String(Buffer.byteLength(text)) });
    const before = await call('GET', `/api/geodatasets/jobs/${u.job.id}`, admin());
    expect(before.body.body.job).toMatchObject({
      id: u.job.id,
      kind: 'upload',
      name,
      state: 'awaiting_upload',
    });

    const put = await putFile(u.upload.url, text, u.upload.headers);
    expect(put.status).toBe(200);
    const job = await waitJob(u.job.id);
    expect(job).toMatchObject({
      state: 'succeeded',
      processed: 2500,
      total: 2500,
      result: { name, num_features: 2500, added: 2500 },
    });
    expect(job.finishedAt).toBeTruthy();

    // The same file through POST /recreate: the stored rows and the entry are the same.
    const twin = uniqueName('upl_twin');
    const rec = await call('POST', '/api/geodatasets/recreate', {
      body: { name: twin, ...OPTS, filename: 'pts.geojson', geojson: JSON.parse(text) },
      ...admin(),
    });
    expect(rec.status).toBe(200);
    expect(await stored(name)).toEqual(await stored(twin));
    expect(await entry(name)).toEqual(await entry(twin));
    expect((await entry(name)).fieldStats!.n).toMatchObject({ min: 0, max: 2499, count: 2500 });

    // Readable over HTTP, properties as sent.
    const read = await readAll(name);
    expect(read.map((f) => f.properties.n)).toEqual(feats.map((f) => f.properties.n));
    expect(read[3].properties.s).toBe('火星-3');
    expect(read[3].geometry).toEqual(feats[3].geometry);

    // The uploaded object is gone (a presigned GET from the stand-in answers 404).
    process.env.S3_ENDPOINT = inject('s3Endpoint');
    process.env.UPLOAD_BUCKET = bucketKey(u.upload.url).bucket;
    const { presignGet } = await import('#lib/uploads/s3.ts');
    const gone = await fetch(await presignGet(bucketKey(u.upload.url).key, 60));
    expect(gone.status).toBe(404);
  });

  it('appends through an upload exactly as POST /append does', async () => {
    const name = uniqueName('upl_app');
    const twin = uniqueName('upl_app_twin');
    const first = points(1200);
    const more = points(800, 5000);
    expect((await upload(fcText(first), { name, ...OPTS })).final.state).toBe('succeeded');
    await call('POST', '/api/geodatasets/recreate', {
      body: { name: twin, ...OPTS, geojson: JSON.parse(fcText(first)) },
      ...admin(),
    });

    const app = await upload(fcText(more), { name, action: 'append', startProp: 't', filename: 'more.json' });
    expect(app.final).toMatchObject({
      state: 'succeeded',
      processed: 800,
      result: { name, num_features: 2000, added: 800 },
    });
    const r = await call('POST', `/api/geodatasets/append/${twin}?start_prop=t&filename=more.json`, {
      body: fcText(more),
      ...admin(),
    });
    expect(r.status).toBe(200);
    expect(await stored(name)).toEqual(await stored(twin));
    expect(await entry(name)).toEqual(await entry(twin));
    expect((await entry(name)).fieldStats!.n).toMatchObject({ min: 0, max: 5799, count: 2000 });
    expect((await findDataset(db.sql, name))!.filename).toBe('more.json');
  });

  it('fails a malformed file with the feature index and byte offset; the dataset stays as it was', async () => {
    const name = uniqueName('upl_bad');
    const base = points(300);
    expect((await upload(fcText(base), { name, ...OPTS })).final.state).toBe('succeeded');
    const entryBefore = await entry(name);
    const rowsBefore = await stored(name);

    // Features before the bad one hold multi-byte text: offsets are bytes, not characters.
    const feats = points(6000, 1000).map((f) => JSON.stringify(f));
    const head = '{"type":"FeatureCollection","features":[';
    const offsetOf = (k: number) => Buffer.byteLength(head + feats.slice(0, k).join(',') + (k ? ',' : ''));

    // (1) invalid JSON inside feature 4321
    const broken = [...feats];
    broken[4321] =
      '{"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{"a":tru}}';
    const j1 = (await upload(`${head}${broken.join(',')}]}`, { name, ...OPTS })).final;
    expect(j1.state).toBe('failed');
    expect(j1.error).toContain('Feature 4321');
    expect(j1.error).toContain(`byte ${offsetOf(4321)}`);
    expect(j1.result).toEqual({ featureIndex: 4321, byteOffset: offsetOf(4321) });

    // (2) valid JSON, invalid geometry (latitude 95) in feature 5555: the validation message of recreate
    const bad = [...feats];
    bad[5555] = JSON.stringify({
      type: 'Feature',
      geometry: { type: 'Point', coordinates: [10, 95] },
      properties: {},
    });
    const text2 = `${head}${bad.join(',')}]}`;
    const j2 = (await upload(text2, { name, ...OPTS })).final;
    expect(j2.state).toBe('failed');
    const direct = await call('POST', `/api/geodatasets/recreate/${uniqueName('upl_cmp')}`, {
      body: text2,
      ...admin(),
    });
    expect(direct.status).toBe(400);
    expect(j2.error).toContain(direct.body.message.replace(/\.$/, ''));
    expect(j2.error).toContain(`byte ${offsetOf(5555)}`);
    expect(j2.result).toEqual({ featureIndex: 5555, byteOffset: offsetOf(5555) });

    // (3) a truncated file, (4) not GeoJSON at all
    const j3 = (await upload(`${head}${feats.join(',')}`.slice(0, -40), { name, ...OPTS })).final;
    expect(j3.state).toBe('failed');
    expect(j3.error).toMatch(/ends inside feature 5999/);
    const j4 = (await upload('{"type":"Topology","objects":{}}', { name, ...OPTS })).final;
    expect(j4).toMatchObject({ state: 'failed' });
    expect(j4.error).toContain('FeatureCollection');

    expect(await entry(name)).toEqual(entryBefore);
    expect(await stored(name)).toEqual(rowsBefore);
  });

  it('validates the request like recreate and refuses a declared size above the limit', async () => {
    const r1 = await call('POST', '/api/geodatasets/upload', { body: { name: 'bad name!' }, ...admin() });
    expect(r1.status).toBe(400);
    expect(r1.body.message).toMatch(/'name'/);
    const r2 = await call('POST', '/api/geodatasets/upload', {
      body: { name: 'ok', action: 'merge' },
      ...admin(),
    });
    expect(r2.status).toBe(400);
    expect(r2.body.message).toMatch(/'action'/);
    const r3 = await call('POST', '/api/geodatasets/upload', { body: { name: 'ok', size: -1 }, ...admin() });
    expect(r3.status).toBe(400);
    expect(r3.body.message).toMatch(/'size'/);
    const r4 = await call('POST', '/api/geodatasets/upload', {
      body: { name: 'ok', size: 2 * 1024 ** 3 + 1 },
      ...admin(),
    });
    expect(r4.status).toBe(413);
    expect(r4.body).toEqual({
      status: 'failure',
      message: 'The file (2147483649 bytes) is larger than the upload limit of 2147483648 bytes.',
    });
    const r5 = await call('POST', '/api/geodatasets/upload', { body: { name: 'ok' }, base: apiUrlLocal() });
    expect(r5.status).toBe(401);
    const r6 = await call('POST', '/api/geodatasets/upload', { body: { name: 'ok' } });
    expect(r6.status).toBe(401);
  });

  it('is idempotent under a repeated ObjectCreated event', async () => {
    const name = uniqueName('upl_retry');
    const up = await upload(fcText(points(50)), { name, ...OPTS });
    expect(up.final.state).toBe('succeeded');
    const { bucket, key } = bucketKey(up.upload.url);
    const event = {
      Records: [{ eventName: 'ObjectCreated:Put', s3: { bucket: { name: bucket }, object: { key } } }],
    };
    expect(await invokeIngest(event)).toEqual({ states: ['skipped'] });
    const again = await waitJob(up.job.id);
    expect(again).toEqual(up.final);
    expect((await entry(name)).numFeatures).toBe(50);
    expect(
      await invokeIngest({
        Records: [
          { eventName: 'ObjectCreated:Put', s3: { bucket: { name: bucket }, object: { key: 'incoming/x' } } },
        ],
      }),
    ).toEqual({ states: ['skipped'] });
  });

  it('an expired URL answers 403 from S3; the job fails once its time is over', async () => {
    const name = uniqueName('upl_exp');
    const u = await requestUpload({ name });
    process.env.S3_ENDPOINT = inject('s3Endpoint');
    process.env.UPLOAD_BUCKET = bucketKey(u.upload.url).bucket;
    const { presignPut } = await import('#lib/uploads/s3.ts');
    const short = await presignPut(bucketKey(u.upload.url).key, 1);
    await new Promise((ok) => setTimeout(ok, 2100));
    const put = await putFile(short.url, fcText(points(3)));
    expect(put.status).toBe(403);
    expect(await put.text()).toContain('expired');
    const still = await call('GET', `/api/geodatasets/jobs/${u.job.id}`, admin());
    expect(still.body.body.job.state).toBe('awaiting_upload');

    // Past the URL's expiry plus the grace: the scheduled run fails it.
    await db.sql`
      update jobs set input = jsonb_set(input, '{expiresAt}', to_jsonb('2001-01-01T00:00:00Z'::text))
      where id = ${u.job.id}::uuid`;
    const swept = await invokeIngest({ source: 'aws.events', 'detail-type': 'Scheduled Event' });
    // (a parallel upload request may have swept it first: every request sweeps too)
    expect(swept.expired).toBeTypeOf('number');
    const job = (await call('GET', `/api/geodatasets/jobs/${u.job.id}`, admin())).body.body.job;
    expect(job).toMatchObject({
      state: 'failed',
      error: 'No file was uploaded before the upload URL expired.',
    });
    expect(await findDataset(db.sql, name)).toBeUndefined();
  });
});

describe('the local S3 stand-in', () => {
  it('takes a PUT into a folder while a delete empties that folder (local/devServer.ts)', async () => {
    // s3rver removes a folder that a delete leaves empty; a PUT into it at that moment failed with 500, or
    // took its process down. Each round: one object in the folder, then its delete beside a new PUT.
    const u = await requestUpload({ name: uniqueName('upl_s3race') });
    process.env.S3_ENDPOINT = inject('s3Endpoint');
    process.env.UPLOAD_BUCKET = bucketKey(u.upload.url).bucket;
    const { deleteObject, presignPut, RESPONSES_PREFIX, requireBucket } = await import('#lib/uploads/s3.ts');
    const put = async (key: string, body: string) =>
      (await putFile((await presignPut(key, 60)).url, body)).status;
    const tag = uniqueName('race');
    for (let i = 0; i < 30; i++) {
      const [a, b] = [`${RESPONSES_PREFIX}${tag}-a${i}`, `${RESPONSES_PREFIX}${tag}-b${i}`];
      expect(await put(a, 'a')).toBe(200);
      const [, status] = await Promise.all([deleteObject(requireBucket(), a), put(b, 'b'.repeat(1000))]);
      expect(status, `round ${i}`).toBe(200);
      await deleteObject(requireBucket(), b);
    }
    expect((await call('GET', '/api/ogc/conformance')).status).toBe(200);
  });
});
