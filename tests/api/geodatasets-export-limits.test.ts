import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { getDb } from '#lib/db/index.ts';
import { recreateGeodataset } from '#lib/geodatasets/write/write.ts';
import { EXPORT_KIND } from '#lib/uploads/exportRule.ts';
import { handler as reapJobs } from '../../functions/jobs/reapJobs.ts';
import { type RunningService, startService } from '../../local/devServer.ts';
import { points } from '../fixtures/uploads.ts';
import { adminToken, call, uniqueName } from '../helpers.ts';

/**
 * The bounds of export jobs (docs/geodatasets-read.md, "Export jobs"): caps on running exports per
 * caller, per layer and in all (429/503 with Retry-After, nothing started); one export for the same read
 * written differently; the read's CQL2 cost bound before any job; finished exports and their objects
 * deleted by the reaper after their reuse window, and at once with their layer. A second service on the
 * test database with a small threshold (1,000 features) hands whole reads of a 2,500-point layer to jobs.
 * Running exports are made as rows (a heartbeat of now), so a cap is reached however fast real exports end.
 */

const ABOVE = 1000;
const N = 2500;
const RUNNING = 10;
const db = getDb();
const name = uniqueName('export_caps');
let big: RunningService;
const made: string[] = [];

beforeAll(async () => {
  await recreateGeodataset(
    db,
    { type: 'FeatureCollection', features: points(N) },
    { name, groupIdProp: 'g' },
  );
  big = await startService({
    databaseUrl: inject('databaseUrl'),
    env: {
      LOG_LEVEL: 'warn',
      AUTH: 'none',
      EXPORT_ABOVE_FEATURES: String(ABOVE),
      EXPORT_MAX_PER_CALLER: '2',
      EXPORT_MAX_PER_LAYER: '2',
      EXPORT_MAX_RUNNING: String(RUNNING),
    },
  });
}, 180_000);

afterAll(async () => {
  await big?.stop();
  if (made.length) await db.sql`delete from jobs where id = any(${made}::uuid[])`;
  await db.sql`delete from jobs where kind = ${EXPORT_KIND} and name like ${`${name}%`}`;
  for (const layer of [name, `${name}_gone`, `${name}_dense`]) {
    const [row] = await db.sql`select table_name from geodatasets where name = ${layer}`;
    if (row) {
      await db.sql.unsafe(`drop table if exists ${row.table_name as string}`);
      await db.sql`delete from geodatasets where name = ${layer}`;
    }
  }
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

/** A request to the export service from `localAddress` (a loopback address: the service's source IP). */
function from(localAddress: string, method: string, path: string, body?: unknown): Promise<Answer> {
  const url = new URL(path, big.url);
  const text = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = {};
    if (text !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = Buffer.byteLength(text);
    }
    const req = request(url, { method, localAddress, agent: false, headers }, (res) => {
      let out = '';
      res.setEncoding('utf8');
      res.on('data', (c) => {
        out += c;
      });
      res.on('end', () => {
        let parsed: any = out;
        try {
          parsed = JSON.parse(out);
        } catch {}
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed });
      });
    });
    req.on('error', reject);
    req.end(text);
  });
}

/** Export jobs as a live function leaves them: `running`, a heartbeat of now. */
async function running(count: number, layer: string, caller: string): Promise<string[]> {
  const ids = Array.from({ length: count }, () => randomUUID());
  for (const id of ids) {
    await db.sql`
      insert into jobs (id, kind, name, state, input, started_at, heartbeat_at, attempts)
      values (${id}::uuid, ${EXPORT_KIND}, ${layer}, 'running',
        ${db.sql.json({ key: randomUUID(), layer, caller } as any)}, now(), now(), 1)`;
  }
  made.push(...ids);
  return ids;
}

async function drop(ids: string[]) {
  await db.sql`delete from jobs where id = any(${ids}::uuid[])`;
}

/** Export jobs of the test layer started by this request, by `caller` (`address:<ip>`). */
async function startedBy(caller: string): Promise<number> {
  const [{ n }] = await db.sql`
    select count(*)::int as n from jobs where kind = ${EXPORT_KIND} and name = ${name}
      and input->>'caller' = ${caller}`;
  return n;
}

/** The job id a handed-over read names: its 202's job, or the job its 303 names. */
function jobOf(r: Answer): string {
  if (r.status === 303) return /exported by job ([0-9a-f-]{36})/.exec(r.body.message)![1];
  expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(202);
  return r.body.body.job.id;
}

async function finished(id: string): Promise<Record<string, any>> {
  for (let i = 0; i < 300; i++) {
    const r = await call('GET', `/api/geodatasets/jobs/${id}`, { base: big.url });
    expect(r.status, r.text.slice(0, 300)).toBe(200);
    const job = r.body.body.job;
    if (job.state === 'succeeded' || job.state === 'failed') return job;
    await new Promise((ok) => setTimeout(ok, 200));
  }
  throw new Error('the export job did not finish');
}

function refused(r: Answer, status: number, message: RegExp) {
  expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(status);
  expect(r.headers['retry-after']).toBe('30');
  expect(r.headers['cache-control']).toBe('no-store');
  expect(r.body).toEqual({ status: 'failure', message: expect.stringMatching(message) });
}

describe('caps on running exports', () => {
  it('a caller with 2 exports running is refused a third: 429 with Retry-After, nothing started', async () => {
    const address = '127.0.0.71';
    const caller = `address:${address}`;
    const mine = await running(2, `${name}_elsewhere`, caller);
    const r = await from(address, 'GET', `/api/geodatasets/get?layer=${name}&filters=n+>+number+1`);
    refused(r, 429, /You have 2 exports running, the most one caller may run at once; try again in 30 s/);
    expect(await startedBy(caller)).toBe(0);
    // Another caller is not held by this one's cap.
    const other = await from('127.0.0.72', 'GET', `/api/geodatasets/get?layer=${name}&filters=n+>+number+1`);
    const id = jobOf(other);
    expect(await startedBy('address:127.0.0.72')).toBe(1);
    // And once one of its exports has ended, the caller reuses that running or finished export.
    await drop(mine.slice(0, 1));
    expect(jobOf(await from(address, 'GET', `/api/geodatasets/get?layer=${name}&filters=n+>+number+1`))).toBe(
      id,
    );
    await drop(mine);
    expect((await finished(id)).state).toBe('succeeded');
  }, 120_000);

  it('a layer with 2 exports running is refused a third, whoever asks: 503', async () => {
    const theirs = await running(2, name, 'address:192.0.2.1');
    const r = await from('127.0.0.73', 'GET', `/api/geodatasets/get?layer=${name}&filters=n+>+number+2`);
    refused(
      r,
      503,
      new RegExp(`2 exports of layer '${name}' are running, the most one layer may have at once`),
    );
    expect(await startedBy('address:127.0.0.73')).toBe(0);
    await drop(theirs);
  });

  it(`the service with ${RUNNING} exports running is refused another: 503`, async () => {
    const all = [];
    for (let i = 0; i < RUNNING; i++)
      all.push(...(await running(1, `${name}_other${i}`, `address:192.0.2.${i}`)));
    const r = await from('127.0.0.74', 'GET', `/api/geodatasets/get?layer=${name}&filters=n+>+number+3`);
    refused(r, 503, /\d+ exports are running, the most the service runs at once/);
    expect(await startedBy('address:127.0.0.74')).toBe(0);
    await drop(all);
  });
});

describe('one export for one read, however it is written', () => {
  it('parameters in another order, spelling or encoding reuse the job', async () => {
    const writings: Array<[string, string, unknown?]> = [
      [
        'GET',
        `/api/geodatasets/get?layer=${name}&_source=n,g&filters=n+>+number+5,g+=+string+g3&filter=n%20%3E%201`,
      ],
      [
        'GET',
        `/api/geodatasets/get/${name}?filter=n%3E1&filters=g+=+string+g3,n+>+number+5&_source=g,n&noDuplicates=false`,
      ],
      [
        'POST',
        '/api/geodatasets/get',
        {
          layer: name,
          type: 'geojson',
          _source: 'g, n',
          filters: 'g+=+string+g3,n+>+number+5',
          filter: { op: '>', args: [{ property: 'n' }, 1] },
        },
      ],
    ];
    const ids = [];
    for (const [method, path, body] of writings)
      ids.push(jobOf(await from('127.0.0.76', method, path, body)));
    expect(new Set(ids).size, ids.join(' ')).toBe(1);
    // The answers written differently are the same bytes (the jobs' objects' text): checked inline on the
    // suite's service (threshold 1,000,000) for the two orders of `_source` and `filters`.
    const a = await call(
      'GET',
      `/api/geodatasets/get?layer=${name}&_source=n,g&filters=n+>+number+5,g+=+string+g3`,
    );
    const b = await call(
      'GET',
      `/api/geodatasets/get?layer=${name}&_source=g,n&filters=g+=+string+g3,n+>+number+5`,
    );
    expect(a.status).toBe(200);
    expect(a.body.features.length).toBeGreaterThan(0);
    expect(b.text).toBe(a.text);
    expect((await finished(ids[0])).state).toBe('succeeded');
  }, 120_000);
});

describe("an export's filter passes the read's cost bound", () => {
  it('a CQL2 filter the read refuses as too costly is the same 400, before any job', async () => {
    // 10,000 points, and 1,000 vertices whose bounding box holds every one: S_CROSSES compares each point
    // with all of them (10,000,000 units: twice the limit of docs/cql2.md, "Cost").
    const dense = `${name}_dense`;
    await recreateGeodataset(db, { type: 'FeatureCollection', features: points(10_000) }, { name: dense });
    const line = Array.from(
      { length: 1000 },
      (_, i) => `${(-179 + (358 * i) / 999).toFixed(2)} ${i % 2 ? 84 : -84}`,
    );
    const filter = `S_CROSSES(geometry, LINESTRING(${line.join(', ')}))`;
    const inline = await call('POST', '/api/geodatasets/get', { body: { layer: dense, filter } });
    expect(inline.status, inline.text.slice(0, 300)).toBe(400);
    expect(inline.body.message).toMatch(/'filter' is too costly/);
    const r = await from('127.0.0.77', 'POST', '/api/geodatasets/get', { layer: dense, filter });
    expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(400);
    expect(r.body).toEqual(inline.body);
    const [{ n }] =
      await db.sql`select count(*)::int as n from jobs where kind = ${EXPORT_KIND} and name = ${dense}`;
    expect(n).toBe(0);
  }, 120_000);
});

describe('the end of an export', () => {
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

  it('the reaper deletes an export past its reuse window with its object; a fresh one stays', async () => {
    const oldId = jobOf(await from('127.0.0.78', 'GET', `/api/geodatasets/get?layer=${name}&group_id=g1`));
    const freshId = jobOf(await from('127.0.0.78', 'GET', `/api/geodatasets/get?layer=${name}&group_id=g2`));
    const old = await finished(oldId);
    const fresh = await finished(freshId);
    expect((await fetch(old.result.url)).status).toBe(200);
    await db.sql`update jobs set finished_at = now() - interval '13 hours' where id = ${oldId}::uuid`;
    // The scheduled function, run here against the export service's storage.
    process.env.S3_ENDPOINT = big.s3Endpoint;
    process.env.UPLOAD_BUCKET = saved.bucket ?? 'mmgis-dev-uploads';
    const out = (await reapJobs({})) as { exportsSwept: { jobs: number } };
    expect(out.exportsSwept.jobs).toBeGreaterThanOrEqual(1);
    expect(await db.sql`select 1 from jobs where id = ${oldId}::uuid`).toHaveLength(0);
    expect((await fetch(old.result.url)).status).toBe(404);
    expect((await call('GET', `/api/geodatasets/jobs/${oldId}`, { base: big.url })).status).toBe(404);
    // The same read starts a new export.
    expect(jobOf(await from('127.0.0.78', 'GET', `/api/geodatasets/get?layer=${name}&group_id=g1`))).not.toBe(
      oldId,
    );
    // The fresh one is untouched: its job answers with a URL that still reads.
    const seen = await call('GET', `/api/geodatasets/jobs/${freshId}`, { base: big.url });
    expect(seen.status).toBe(200);
    expect((await fetch(seen.body.body.job.result.url)).status).toBe(200);
    expect(fresh.state).toBe('succeeded');
  }, 120_000);

  it('removing the layer deletes its exports and objects: the job is 404, its URL reads nothing', async () => {
    const gone = `${name}_gone`;
    await recreateGeodataset(db, { type: 'FeatureCollection', features: points(N) }, { name: gone });
    const id = jobOf(await from('127.0.0.79', 'GET', `/api/geodatasets/get?layer=${gone}`));
    const job = await finished(id);
    expect(job.state).toBe('succeeded');
    expect((await fetch(job.result.url)).status).toBe(200);
    const removed = await call('DELETE', `/api/geodatasets/remove/${gone}`, {
      base: big.url,
      token: adminToken(),
    });
    expect(removed.status, removed.text).toBe(200);
    const after = await call('GET', `/api/geodatasets/jobs/${id}`, { base: big.url });
    expect([404, 410]).toContain(after.status);
    expect(after.body).toMatchObject({ status: 'failure' });
    expect(await db.sql`select 1 from jobs where id = ${id}::uuid`).toHaveLength(0);
    expect((await fetch(job.result.url)).status).toBe(404);
    // A later layer of the same name does not bring the export back.
    await recreateGeodataset(db, { type: 'FeatureCollection', features: points(N) }, { name: gone });
    expect((await call('GET', `/api/geodatasets/jobs/${id}`, { base: big.url })).status).toBe(404);
  }, 120_000);

  it('between the removal and the deletion of its rows, the job of a removed layer is 410', async () => {
    const gone = `${name}_gone`;
    const [ds] = await db.sql`select id from geodatasets where name = ${gone}`;
    const id = randomUUID();
    made.push(id);
    // The row a removal leaves for an instant: the export of the layer's previous catalog row.
    await db.sql`
      insert into jobs (id, kind, name, state, input, result, finished_at)
      values (${id}::uuid, ${EXPORT_KIND}, ${gone}, 'succeeded',
        ${db.sql.json({ key: randomUUID(), layer: gone, layerId: Number(ds.id) + 1_000_000 } as any)},
        ${db.sql.json({ key: `responses/exports/${id}.json`, bytes: 1, features: 1 } as any)}, now())`;
    const r = await call('GET', `/api/geodatasets/jobs/${id}`, { base: big.url });
    expect(r.status, r.text).toBe(410);
    expect(r.body).toEqual({
      status: 'failure',
      message: `Geodataset '${gone}' was removed; its export ${id} is gone.`,
    });
  });
});
