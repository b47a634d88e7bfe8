import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { getDb } from '#lib/db/index.ts';
import { requireDataset } from '#lib/geodatasets/catalog.ts';
import { appendGeodataset, recreateGeodataset } from '#lib/geodatasets/write/write.ts';
import { createJob, getJob } from '#lib/jobs/jobs.ts';
import { EXPORT_KIND, exportInput } from '#lib/uploads/exportRule.ts';
import { handler as exportJob } from '../../functions/jobs/exportGeodataset.ts';
import { type RunningService, startService } from '../../local/devServer.ts';
import { points } from '../fixtures/uploads.ts';
import { type ApiResponse, call, uniqueName } from '../helpers.ts';

/**
 * Whole-layer reads over EXPORT_ABOVE_FEATURES (docs/geodatasets-read.md, "Export jobs"): a second service
 * on the test database with a small threshold hands the whole read of a 2,500-feature layer to an export
 * job; the job's object is byte for byte the answer the first service (default threshold) gives inline.
 */

const ABOVE = 1000;
const N = 2500;
const db = getDb();
const name = uniqueName('export_layer');
let big: RunningService;
let inlineText = '';

beforeAll(async () => {
  await recreateGeodataset(
    db,
    { type: 'FeatureCollection', features: points(N) },
    { name, startProp: 't', groupIdProp: 'g' },
  );
  big = await startService({
    databaseUrl: inject('databaseUrl'),
    env: { LOG_LEVEL: 'warn', AUTH: 'none', EXPORT_ABOVE_FEATURES: String(ABOVE) },
  });
  const r = await call('GET', `/api/geodatasets/get?layer=${name}&type=geojson`);
  expect(r.status).toBe(200);
  inlineText = r.text;
}, 180_000);

afterAll(async () => {
  await big?.stop();
  await db.sql`delete from jobs where kind = ${EXPORT_KIND} and name = ${name}`;
  const [row] = await db.sql`select table_name from geodatasets where name = ${name}`;
  if (row) {
    await db.sql.unsafe(`drop table if exists ${row.table_name as string}`);
    await db.sql`delete from geodatasets where name = ${name}`;
  }
});

const onBig = (path: string) => call('GET', path, { base: big.url });

/** GET of an absolute URL the service gave (a job's Location). */
const follow = (location: string) => {
  const u = new URL(location);
  return call('GET', `${u.pathname}${u.search}`, { base: u.origin });
};

/** The 202 of a read handed to an export job: its job id and Location. */
function started(r: ApiResponse): { id: string; location: string } {
  expect(r.status, r.text.slice(0, 300)).toBe(202);
  expect(r.headers.get('cache-control')).toBe('no-store');
  expect(r.headers.get('retry-after')).toBe('5');
  const location = r.headers.get('location')!;
  expect(location).toMatch(/\/api\/geodatasets\/jobs\/[0-9a-f-]{36}$/);
  expect(r.body).toMatchObject({
    status: 'success',
    url: location,
    body: { job: { id: expect.any(String) } },
  });
  expect(['queued', 'running']).toContain(r.body.body.job.state);
  expect(location.endsWith(r.body.body.job.id)).toBe(true);
  return { id: r.body.body.job.id, location };
}

/** Follows a job's Location until it has finished. */
async function finished(location: string): Promise<Record<string, any>> {
  for (let i = 0; i < 300; i++) {
    const r = await follow(location);
    expect(r.status, r.text.slice(0, 300)).toBe(200);
    const job = r.body.body.job;
    if (job.state === 'succeeded' || job.state === 'failed') return job;
    await new Promise((ok) => setTimeout(ok, 200));
  }
  throw new Error('the export job did not finish');
}

describe('whole-layer reads over EXPORT_ABOVE_FEATURES', () => {
  it('end in a job whose result links the complete GeoJSON, the inline answer byte for byte', async () => {
    const { id, location } = started(await onBig(`/api/geodatasets/get?layer=${name}&type=geojson`));
    const job = await finished(location);
    expect(job).toMatchObject({ id, kind: EXPORT_KIND, name, state: 'succeeded', processed: N, total: N });
    expect(job.result).toMatchObject({ features: N, url: expect.any(String), expiresAt: expect.any(String) });
    const object = await fetch(job.result.url);
    expect(object.status).toBe(200);
    const text = await object.text();
    expect(Buffer.byteLength(text)).toBe(job.result.bytes);
    expect(text).toBe(inlineText);
    const fc = JSON.parse(text);
    expect(fc.type).toBe('FeatureCollection');
    expect(fc.features).toHaveLength(N);
    const ids = fc.features.map((f: any) => f.properties._.idx);
    expect(new Set(ids).size).toBe(N);
    expect(fc.features.map((f: any) => f.properties.n)).toEqual([...Array(N).keys()]);

    // The same read again (with or without `type`, by path or query): a 303 to the finished export's object.
    for (const path of [`/api/geodatasets/get?layer=${name}`, `/api/geodatasets/get/${name}?type=geojson`]) {
      const again = await onBig(path);
      expect(again.status, again.text.slice(0, 300)).toBe(303);
      expect(again.body).toMatchObject({ status: 'success', bytes: job.result.bytes });
      expect(again.body.message).toContain(id);
      expect(await (await fetch(again.headers.get('location')!)).text()).toBe(inlineText);
    }
  });

  it('reuse one running export for requests at once; other parameters and a new version are other exports', async () => {
    const path = `/api/geodatasets/get?layer=${name}&_source=n,g`;
    const answers = await Promise.all(Array.from({ length: 5 }, () => onBig(path)));
    // Each answer names the one job: 202 while it runs, or (a request that came once it had finished) a
    // 303 whose message names it.
    const ids = answers.map((r) =>
      r.status === 303 ? /exported by job ([0-9a-f-]{36})/.exec(r.body.message)?.[1] : started(r).id,
    );
    expect(new Set(ids).size).toBe(1);
    const first = answers.find((r) => r.status === 202);
    expect(first, 'the first of them answered 202').toBeDefined();
    const job = await finished(first!.headers.get('location')!);
    expect(job.state).toBe('succeeded');
    const fc = JSON.parse(await (await fetch(job.result.url)).text());
    expect(fc.features).toHaveLength(N);
    expect(Object.keys(fc.features[0].properties).sort()).toEqual(['_', 'g', 'n']);

    // A filtered whole read is exported with its filter.
    const filtered = started(await onBig(`/api/geodatasets/get?layer=${name}&group_id=g3`));
    const fjob = await finished(filtered.location);
    const ffc = JSON.parse(await (await fetch(fjob.result.url)).text());
    expect(ffc.features.length).toBe(points(N).filter((p) => p.properties.g === 'g3').length);

    // An append makes a new version: the next whole read starts a new export that holds the new feature.
    await appendGeodataset(db, { type: 'FeatureCollection', features: points(1, N) }, { name });
    const next = started(await onBig(`/api/geodatasets/get?layer=${name}&_source=n,g`));
    expect(next.id).not.toBe(job.id);
    const nextJob = await finished(next.location);
    expect(JSON.parse(await (await fetch(nextJob.result.url)).text()).features).toHaveLength(N + 1);
  });

  it('leave paged and limited reads inline (the MMGIS client and pages by key)', async () => {
    const limited = await onBig(`/api/geodatasets/get?layer=${name}&type=geojson&limit=5`);
    expect(limited.status).toBe(200);
    expect(limited.body.features).toHaveLength(5);
    const page = await onBig(`/api/geodatasets/get?layer=${name}&limit=3&after=10`);
    expect(page.status).toBe(200);
    expect(page.body.features.map((f: any) => f.properties._.idx)).toEqual([11, 12, 13]);
  });

  it('an export job is seen by readers; other jobs still need an administrator', async () => {
    const other = await createJob(db.sql, 'recompute_stats', name, {}, 'succeeded');
    const r = await onBig(`/api/geodatasets/jobs/${other.id}`);
    expect(r.status).toBe(401);
    await db.sql`delete from jobs where id = ${other.id}::uuid`;
  });
});

describe('an export whose storage fails', () => {
  const saved = { bucket: process.env.UPLOAD_BUCKET, endpoint: process.env.S3_ENDPOINT };
  afterAll(() => {
    for (const [k, v] of [
      ['UPLOAD_BUCKET', saved.bucket],
      ['S3_ENDPOINT', saved.endpoint],
    ] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  it('fails its job with the storage message, and a read meeting it answers 503, never 500', async () => {
    process.env.S3_ENDPOINT = big.s3Endpoint;
    process.env.UPLOAD_BUCKET = 'no-such-bucket-for-exports';
    const ds = await requireDataset(db.sql, name);
    const input = exportInput(ds, { _source: 'n' });
    const job = await createJob(db.sql, EXPORT_KIND, name, input as any);
    const out = await exportJob({ jobId: job.id });
    expect(out).toMatchObject({ jobId: job.id, state: 'failed' });
    const failed = await getJob(db.sql, job.id);
    expect(failed.state).toBe('failed');
    expect(failed.error).toMatch(/could not be written to storage/);

    // Followed over HTTP: the failed job and its message, in the documented shape.
    const seen = await onBig(`/api/geodatasets/jobs/${job.id}`);
    expect(seen.status).toBe(200);
    expect(seen.body.body.job).toMatchObject({ state: 'failed', error: expect.stringMatching(/storage/) });

    // The same read, sent again and again within EXPORT_RETRY_SECONDS (60), answers the failure: 503 in
    // our shape with Retry-After, and starts no other job.
    const read = `/api/geodatasets/get?layer=${name}&_source=n`;
    for (let i = 0; i < 3; i++) {
      const r = await onBig(read);
      expect(r.status, r.text.slice(0, 300)).toBe(503);
      expect(r.body).toMatchObject({
        status: 'failure',
        message: expect.stringMatching(/storage.*try again in \d+ s/),
      });
      const wait = Number(r.headers.get('retry-after'));
      expect(wait).toBeGreaterThanOrEqual(1);
      expect(wait).toBeLessThanOrEqual(60);
    }
    const [{ n }] =
      await db.sql`select count(*)::int as n from jobs where kind = ${EXPORT_KIND} and name = ${name}
      and input->>'key' = ${input.key}`;
    expect(n).toBe(1);

    // Once that time has passed (the failure aged in the database), the same read starts another export,
    // which the working service completes.
    await db.sql`update jobs set finished_at = now() - interval '61 seconds' where id = ${job.id}::uuid`;
    const again = started(await onBig(read));
    expect(again.id).not.toBe(job.id);
    expect((await finished(again.location)).state).toBe('succeeded');
  });

  it('fails a job whose layer changed since it was asked for', async () => {
    const ds = await requireDataset(db.sql, name);
    const input = { ...exportInput(ds, {}), version: ds.version - 1 };
    const job = await createJob(db.sql, EXPORT_KIND, name, input as any);
    expect(await exportJob({ jobId: job.id })).toMatchObject({ state: 'failed' });
    expect((await getJob(db.sql, job.id)).error).toMatch(/changed since the export was asked for/);
  });
});
