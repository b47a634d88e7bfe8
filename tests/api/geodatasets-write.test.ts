import { describe, expect, inject, it } from 'vitest';
import { getDb } from '#lib/db/index.ts';
import { findDataset } from '#lib/geodatasets/catalog.ts';
import { recreateGeodataset } from '#lib/geodatasets/write/write.ts';
import { adminToken, call, uniqueName } from '../helpers.ts';

const db = getDb();

function pt(lon: number, lat: number, properties: Record<string, unknown> = {}) {
  return { type: 'Feature', geometry: { type: 'Point', coordinates: [lon, lat] }, properties };
}
const fc = (features: unknown[], extra: Record<string, unknown> = {}) => ({
  type: 'FeatureCollection',
  ...extra,
  features,
});
const admin = () => ({ token: adminToken() });

async function derived(name: string) {
  const ds = (await findDataset(db.sql, name))!;
  return db.sql.unsafe(
    `select start_time, end_time, group_id, feature_id, properties from ${ds.table} order by id`,
  );
}

const T1 = '2024-05-01T00:00:00Z';
const T2 = '2024-05-02T00:00:00Z';
const feats = () => [pt(1, 1, { s: T1, e: T2, a: 'x', b: 'y', q: T2, r: T1 })];

async function waitJob(id: string) {
  for (let i = 0; i < 150; i++) {
    const r = await call('GET', `/api/geodatasets/jobs/${id}`, admin());
    if (r.body?.body?.job?.state === 'succeeded' || r.body?.body?.job?.state === 'failed')
      return r.body.body.job;
    await new Promise((ok) => setTimeout(ok, 200));
  }
  throw new Error('job did not finish');
}

describe('geodatasets write routes', () => {
  it('POST /recreate with a JSON body sets props, filename and answers the documented shape', async () => {
    const name = uniqueName('gdwa');
    const r = await call('POST', '/api/geodatasets/recreate', {
      ...admin(),
      body: {
        name,
        geojson: fc(feats()),
        startProp: 's',
        endProp: 'e',
        groupIdProp: 'a,b',
        featureIdProp: 'b',
        filename: 'x.geojson',
      },
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'success', body: { name, num_features: 1, added: 1 } });
    const [row] = await derived(name);
    expect(row.start_time.toISOString()).toBe('2024-05-01T00:00:00.000Z');
    expect(row.end_time.toISOString()).toBe('2024-05-02T00:00:00.000Z');
    expect(row.group_id).toBe('x,y');
    expect(row.feature_id).toBe('y');
    const ds = (await findDataset(db.sql, name))!;
    expect([ds.filename, ds.startProp, ds.endProp, ds.groupIdProp, ds.featureIdProp]).toEqual([
      'x.geojson',
      's',
      'e',
      'a,b',
      'b',
    ]);
  });

  it('POST /recreate with action append appends to an existing dataset and creates a missing one', async () => {
    const name = uniqueName('gdwa');
    const a = await call('POST', '/api/geodatasets/recreate', {
      ...admin(),
      body: { name, geojson: fc(feats()), action: 'append' },
    });
    expect(a.body.body).toEqual({ name, num_features: 1, added: 1 });
    const b = await call('POST', '/api/geodatasets/recreate', {
      ...admin(),
      body: { name, geojson: fc(feats()), action: 'append' },
    });
    expect(b.body.body).toEqual({ name, num_features: 2, added: 1 });
    const c = await call('POST', '/api/geodatasets/recreate', {
      ...admin(),
      body: { name, geojson: fc(feats()), action: 'nope' },
    });
    expect(c.status).toBe(400);
    expect(c.body.message).toMatch(/action/);
  });

  it('POST /recreate/:name takes props from top-level GeoJSON members; /:start_end_prop from the URL', async () => {
    const name = uniqueName('gdwa');
    let r = await call('POST', `/api/geodatasets/recreate/${name}`, {
      ...admin(),
      body: fc(feats(), { startProp: 's', groupIdProp: 'a' }),
    });
    expect(r.body).toEqual({ status: 'success', body: { name, num_features: 1, added: 1 } });
    let [row] = await derived(name);
    expect(row.start_time.toISOString()).toBe('2024-05-01T00:00:00.000Z');
    expect(row.end_time).toBeNull();
    expect(row.group_id).toBe('x');
    r = await call('POST', `/api/geodatasets/recreate/${name}/q,r`, { ...admin(), body: fc(feats()) });
    expect(r.body.body).toEqual({ name, num_features: 1, added: 1 });
    [row] = await derived(name);
    expect(row.start_time.toISOString()).toBe('2024-05-02T00:00:00.000Z');
    expect(row.end_time.toISOString()).toBe('2024-05-01T00:00:00.000Z');
    expect(row.group_id).toBeNull();
  });

  it('POST /append/:name: query props, body members take precedence, creation props are not reused', async () => {
    const name = uniqueName('gdwa');
    await call('POST', '/api/geodatasets/recreate', {
      ...admin(),
      body: { name, geojson: fc(feats()), startProp: 's', groupIdProp: 'a' },
    });
    // no props: NULL derived columns
    let r = await call('POST', `/api/geodatasets/append/${name}`, { ...admin(), body: fc(feats()) });
    expect(r.body.body).toEqual({ name, num_features: 2, added: 1 });
    // query only
    r = await call(
      'POST',
      `/api/geodatasets/append/${name}?start_prop=q&end_prop=r&group_id_prop=a,b&feature_id_prop=a&filename=f2`,
      { ...admin(), body: fc(feats()) },
    );
    expect(r.body.body).toEqual({ name, num_features: 3, added: 1 });
    // body members beat query
    r = await call('POST', `/api/geodatasets/append/${name}?start_prop=q&group_id_prop=a`, {
      ...admin(),
      body: fc(feats(), { startProp: 's', groupIdProp: 'b' }),
    });
    expect(r.status).toBe(200);
    // path pair
    r = await call('POST', `/api/geodatasets/append/${name}/r,q`, {
      ...admin(),
      body: fc(feats(), { featureIdProp: 'b' }),
    });
    expect(r.body.body).toEqual({ name, num_features: 5, added: 1 });
    const rows = await derived(name);
    const iso = (d: Date | null) => d?.toISOString() ?? null;
    expect(rows.map((x) => [iso(x.start_time), iso(x.end_time), x.group_id, x.feature_id])).toEqual([
      ['2024-05-01T00:00:00.000Z', null, 'x', null],
      [null, null, null, null],
      ['2024-05-02T00:00:00.000Z', '2024-05-01T00:00:00.000Z', 'x,y', 'x'],
      ['2024-05-01T00:00:00.000Z', null, 'y', null],
      ['2024-05-01T00:00:00.000Z', '2024-05-02T00:00:00.000Z', null, 'y'],
    ]);
    const ds = (await findDataset(db.sql, name))!;
    expect([ds.startProp, ds.groupIdProp, ds.filename]).toEqual(['s', 'a', 'f2']);
  });

  it('writes need an admin token; entries does not', async () => {
    const name = uniqueName('gdwa');
    const r = await call('POST', `/api/geodatasets/append/${name}`, { body: fc(feats()) });
    expect(r.status).toBe(401);
    expect(await findDataset(db.sql, name)).toBeUndefined();
    const e = await call('GET', '/api/geodatasets/entries');
    expect(e.status).toBe(200);
    const p = await call('POST', '/api/geodatasets/entries');
    expect(p.status).toBe(200);
  });

  it('entries list the documented fields, derived field_stats and occurrences in the latest configs', async () => {
    const name = uniqueName('gdwa');
    await call('POST', '/api/geodatasets/recreate', {
      ...admin(),
      body: {
        name,
        geojson: fc([pt(0, 0, { n: 1 }), pt(0, 0, { n: '3' }), pt(0, 0, { n: 'x' })]),
        startProp: 's',
      },
    });
    const mission = uniqueName('M');
    const uuid1 = '3f1c2a9e-6a55-4a8e-9d7a-0c1b2d3e4f50';
    const uuid2 = '3f1c2a9e-6a55-4a8e-9d7a-0c1b2d3e4f51';
    const config = (url: string) => ({
      msv: { view: [0, 0, 1] },
      tools: [],
      layers: [
        {
          name: 'H',
          type: 'header',
          uuid: '3f1c2a9e-6a55-4a8e-9d7a-0c1b2d3e4f52',
          sublayers: [
            {
              name: 'Inner',
              type: 'header',
              uuid: '3f1c2a9e-6a55-4a8e-9d7a-0c1b2d3e4f53',
              sublayers: [{ name: 'deep', type: 'vector', url, uuid: uuid1 }],
            },
          ],
        },
        { name: 'top', type: 'vector', url, uuid: uuid2 },
      ],
    });
    // version 1 names another dataset, version 2 (the latest) names ours
    await db.sql`insert into configs (mission, version, config) values (${mission}, 1, ${db.sql.json(config('geodatasets:other') as any)}), (${mission}, 2, ${db.sql.json(config(`geodatasets:${name}`) as any)})`;
    const r = await call('GET', '/api/geodatasets/entries');
    const e = r.body.body.entries.find((x: any) => x.name === name);
    expect(e).toMatchObject({
      name,
      properties_type: 'jsonb',
      filename: null,
      num_features: 3,
      start_prop: 's',
      end_prop: null,
      group_id_prop: null,
      feature_id_prop: null,
      // the established server's names of the same props (its configure app reads these)
      start_time_field: 's',
      end_time_field: null,
      group_id_field: null,
      feature_id_field: null,
    });
    expect(new Date(e.updated).toISOString()).toBe(e.updated);
    expect(e.field_stats).toEqual({
      n: { type: 'number', min: 1, max: 3, sum: 4, sumsq: 10, count: 2, nullCount: 1, avg: 2, stddev: 1 },
    });
    expect(e.occurrences).toEqual({
      [mission]: [
        { name: 'deep', uuid: uuid1, path: 'H.Inner' },
        { name: 'top', uuid: uuid2, path: '' },
      ],
    });
    await db.sql`delete from configs where mission = ${mission}`;
  });

  it('DELETE /remove/:name removes the entry and its table; unknown is 404; bad names 400', async () => {
    const name = uniqueName('gdwa');
    await call('POST', `/api/geodatasets/recreate/${name}`, { ...admin(), body: fc(feats()) });
    const table = (await findDataset(db.sql, name))!.table;
    const r = await call('DELETE', `/api/geodatasets/remove/${name}`, admin());
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('success');
    expect(await findDataset(db.sql, name)).toBeUndefined();
    const [t] = await db.sql`select to_regclass(${table}) as t`;
    expect(t.t).toBeNull();
    expect((await call('DELETE', `/api/geodatasets/remove/${name}`, admin())).status).toBe(404);
    expect((await call('DELETE', `/api/geodatasets/remove/a%3Bdrop%20table%20x`, admin())).status).toBe(400);
  });

  it('bad input is 4xx and changes nothing', async () => {
    const name = uniqueName('gdwa');
    await call('POST', `/api/geodatasets/recreate/${name}`, { ...admin(), body: fc([pt(5, 5, { v: 1 })]) });
    const before = await findDataset(db.sql, name);
    const cases: [string, string, unknown][] = [
      [
        'POST',
        `/api/geodatasets/append/${name}`,
        '{"type":"FeatureCollection","features":[{"type":"Feature",',
      ],
      ['POST', `/api/geodatasets/append/${name}`, fc([pt(1, 1), { type: 'Feature', properties: {} }])],
      ['POST', `/api/geodatasets/append/${name}`, fc([pt(1, 1), pt(181, 1)])],
      ['POST', `/api/geodatasets/append/${name}`, fc([pt(1, 1), pt(1, -91)])],
      [
        'POST',
        `/api/geodatasets/recreate/${name}`,
        fc([
          pt(1, 1),
          {
            type: 'Feature',
            geometry: {
              type: 'Polygon',
              coordinates: [
                [
                  [0, 0],
                  [1, 0],
                  [1, 1],
                ],
              ],
            },
            properties: {},
          },
        ]),
      ],
      ['POST', `/api/geodatasets/recreate/${name}`, { type: 'Topology' }],
      ['POST', `/api/geodatasets/recreate/${name}`, ''],
      ['POST', `/api/geodatasets/recreate/${name}?group_id_prop=x`, fc([pt(1, 1)], { startProp: 5 })],
      [
        'POST',
        '/api/geodatasets/recreate',
        { name: `${name}'; drop table geodatasets; --`, geojson: fc([pt(1, 1)]) },
      ],
      ['POST', '/api/geodatasets/recreate', { name, geojson: 'not json' }],
    ];
    for (const [method, path, body] of cases) {
      const r = await call(method, path, { ...admin(), body });
      expect(r.status, `${path} ${JSON.stringify(body).slice(0, 100)}`).toBe(400);
      expect(r.body.status).toBe('failure');
      expect(typeof r.body.message).toBe('string');
    }
    // A database error mid-write (jsonb refuses \u0000 in text) is a 400 naming the feature (a server's COPY
    // says which line) or the batch (INSERT, embedded); nothing stored.
    const nul = await call('POST', `/api/geodatasets/append/${name}`, {
      ...admin(),
      body: fc([pt(1, 1, { a: 1 }), pt(1, 1, { s: 'a\u0000b' })]),
    });
    expect(nul.status).toBe(400);
    expect(nul.body.message).toMatch(
      /^(Feature 1: the database refused it|Features 0-1: the database refused them)/,
    );
    const idx = await call('POST', `/api/geodatasets/append/${name}`, {
      ...admin(),
      body: fc([pt(1, 1), pt(1, 1), { type: 'Feature', geometry: null, properties: {} }]),
    });
    expect(idx.body.message).toMatch(/Feature 2/);
    // injection strings as props are plain keys
    const inj = await call(
      'POST',
      `/api/geodatasets/append/${name}?group_id_prop=${encodeURIComponent("a'); drop table geodatasets; --")}`,
      { ...admin(), body: fc([pt(1, 1, { "a'); drop table geodatasets; --": 'g' })]) },
    );
    expect(inj.status).toBe(200);
    const after = (await findDataset(db.sql, name))!;
    expect(after.numFeatures).toBe(before!.numFeatures + 1);
  });

  it('a body above the Lambda limit is 413 naming the limit and the upload path; nothing stored', async () => {
    const name = uniqueName('gdwa');
    // 7 MB: under serverless-offline's own 10 MiB cap, above MAX_BODY_BYTES (6 MB, Lambda's limit)
    const big = JSON.stringify(fc([pt(1, 1, { s: 'x'.repeat(7 * 1024 * 1024) })]));
    const r = await call('POST', `/api/geodatasets/append/${name}`, { ...admin(), body: big });
    expect(r.status).toBe(413);
    expect(r.body.status).toBe('failure');
    expect(r.body.message).toMatch(/6291456 bytes/);
    expect(r.body.message).toMatch(/upload/);
    expect(await findDataset(db.sql, name)).toBeUndefined();
  });

  it("a body above the local server's own 10 MiB cap gets our failure shape too, naming both limits", async () => {
    const name = uniqueName('gdwa');
    // 11 MB: serverless-offline's hapi refuses it before any function runs (offline-failure-shape.cjs).
    const big = JSON.stringify(fc([pt(1, 1, { s: 'x'.repeat(11 * 1024 * 1024) })]));
    const r = await call('POST', `/api/geodatasets/append/${name}`, { ...admin(), body: big });
    expect(r.status).toBe(413);
    expect(r.body).toEqual({ status: 'failure', message: expect.stringMatching(/10485760 bytes/) });
    expect(r.body.message).toMatch(/6291456 bytes/);
    expect(r.body.message).toMatch(/upload/);
    expect(await findDataset(db.sql, name)).toBeUndefined();
  });

  it('convert_properties and recompute_stats run as jobs with a status endpoint', async () => {
    const name = uniqueName('gdwa');
    await call('POST', `/api/geodatasets/recreate/${name}`, {
      ...admin(),
      body: fc([pt(1, 1, { v: 2 }), pt(2, 2, { v: 4 })]),
    });
    const already = await call('POST', `/api/geodatasets/convert_properties/${name}`, admin());
    expect(already.status).toBe(200);
    expect(already.body.body.job.state).toBe('succeeded');
    await db.sql`update geodatasets set field_stats = null where name = ${name}`;
    const r = await call('POST', `/api/geodatasets/recompute_stats/${name}`, admin());
    expect(r.status).toBe(202);
    expect(r.body.body.job.state).toBe('queued');
    const job = await waitJob(r.body.body.job.id);
    expect(job).toMatchObject({ kind: 'recompute_stats', name, state: 'succeeded' });
    expect((await findDataset(db.sql, name))!.fieldStats).toEqual({
      v: { type: 'number', min: 2, max: 4, sum: 6, sumsq: 20, count: 2 },
    });
    expect((await call('GET', '/api/geodatasets/jobs/not-a-uuid', admin())).status).toBe(400);
    expect(
      (await call('GET', '/api/geodatasets/jobs/3f1c2a9e-6a55-4a8e-9d7a-0c1b2d3e4f50', admin())).status,
    ).toBe(404);
    expect((await call('GET', `/api/geodatasets/jobs/${r.body.body.job.id}`)).status).toBe(401);
    expect(
      (await call('POST', `/api/geodatasets/recompute_stats/${uniqueName('none')}`, admin())).status,
    ).toBe(404);
  });

  it('convert_properties converts a json dataset to jsonb through the job, data unchanged', async () => {
    const name = uniqueName('gdwj');
    const props = (i: number) => ({ i, s: `v${i}`, o: { a: [i, null] } });
    await recreateGeodataset(
      db,
      fc(Array.from({ length: 30 }, (_, i) => pt(i, -i, props(i)))),
      { name },
      { propertiesType: 'json' },
    );
    const read = async () => {
      const ds = (await findDataset(db.sql, name))!;
      return (
        await db.sql.unsafe(`select id, ST_AsText(geom) g, properties::jsonb p from ${ds.table} order by id`)
      ).map((r) => ({ ...r }));
    };
    const before = await read();
    const r = await call('POST', `/api/geodatasets/convert_properties/${name}`, admin());
    expect(r.status).toBe(202);
    const job = await waitJob(r.body.body.job.id);
    expect(job).toMatchObject({ kind: 'convert_properties', name, state: 'succeeded' });
    expect(job.finishedAt).toBeDefined();
    expect((await findDataset(db.sql, name))!.propertiesType).toBe('jsonb');
    expect(await read()).toEqual(before);
    expect(before[7].p).toEqual(props(7));
  });

  it('the scheduled stats recompute can be invoked through the local Lambda endpoint', async () => {
    const name = uniqueName('gdws');
    await call('POST', `/api/geodatasets/recreate/${name}`, {
      ...admin(),
      body: fc([pt(1, 1, { w: 3 }), pt(1, 1, { w: '5' })]),
    });
    // Other test files run the same recompute (over every dataset without stats): in one of three tries,
    // this invocation is the one that recomputes ours.
    let out = { recomputed: [] as string[] };
    for (let i = 0; i < 3 && !out.recomputed.includes(name); i++) {
      await db.sql`update geodatasets set field_stats = null where name = ${name}`;
      const res = await fetch(
        `http://127.0.0.1:${inject('lambdaPort')}/2015-03-31/functions/mmgis-dev-jobRecomputeMissingStats/invocations`,
        { method: 'POST', body: '{}' },
      );
      expect(res.status).toBe(200);
      out = (await res.json()) as { recomputed: string[] };
    }
    expect(out.recomputed).toContain(name);
    expect((await findDataset(db.sql, name))!.fieldStats).toEqual({
      w: { type: 'number', min: 3, max: 5, sum: 8, sumsq: 34, count: 2 },
    });
  });

  it('parallel appends over HTTP lose no feature and no stats update', async () => {
    const name = uniqueName('gdwc');
    await call('POST', `/api/geodatasets/recreate/${name}`, { ...admin(), body: fc([pt(0, 0, { v: 0 })]) });
    const n = 5;
    const per = 20;
    const res = await Promise.all(
      Array.from({ length: n }, (_, j) =>
        call('POST', `/api/geodatasets/append/${name}`, {
          ...admin(),
          body: fc(Array.from({ length: per }, (_, i) => pt(1, 1, { v: j * per + i + 1 }))),
        }),
      ),
    );
    expect(res.map((r) => r.status)).toEqual(Array(n).fill(200));
    expect(res.map((r) => r.body.body.num_features).sort((a, b) => a - b)).toEqual(
      Array.from({ length: n }, (_, k) => 1 + per * (k + 1)),
    );
    const m = n * per;
    const ds = (await findDataset(db.sql, name))!;
    expect(ds.numFeatures).toBe(m + 1);
    expect(ds.fieldStats).toEqual({
      v: {
        type: 'number',
        min: 0,
        max: m,
        sum: (m * (m + 1)) / 2,
        sumsq: (m * (m + 1) * (2 * m + 1)) / 6,
        count: m + 1,
      },
    });
  });
});
