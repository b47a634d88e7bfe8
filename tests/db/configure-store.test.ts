import { describe, expect, it } from 'vitest';
import { addLayer, updateInitialView, upsert } from '#lib/configure/operations.ts';
import {
  commitChange,
  destroyMission,
  listVersions,
  readLatest,
  readLatestOfEach,
  readVersion,
  validateWithDatasets,
} from '#lib/configure/store.ts';
import { getDb } from '#lib/db/index.ts';
import { HttpError } from '#lib/errors.ts';
import { pushToMission } from '#lib/events/push.ts';
import { uniqueName } from '../helpers.ts';

const db = () => getDb();
const config = (layers: unknown[] = [], view = [1, 2, 3]) => ({ msv: { view }, tools: [], layers });

async function status(p: Promise<unknown>): Promise<number> {
  try {
    await p;
    return 200;
  } catch (e) {
    if (e instanceof HttpError) return e.statusCode;
    throw e;
  }
}

describe('configuration store', () => {
  it('stores versions from 1, +1 per change, with ISO timestamps', async () => {
    const mission = uniqueName('st');
    expect((await upsert(db(), { mission, config: config() })).version).toBe(1);
    expect((await upsert(db(), { mission, config: config([], [4, 5, 6]) })).version).toBe(2);
    const latest = await readLatest(db().sql, mission);
    expect(latest).toMatchObject({ mission, version: 2, config: config([], [4, 5, 6]) });
    expect(latest!.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect((await readVersion(db().sql, mission, 1))!.config).toEqual(config());
    expect(await readVersion(db().sql, mission, 3)).toBeUndefined();
    expect((await listVersions(db().sql, mission)).map((v) => v.version)).toEqual([1, 2]);
  });

  it('keeps every change under concurrency: parallel addLayer calls → distinct versions, all layers', async () => {
    const mission = uniqueName('race');
    await upsert(db(), { mission, config: config() });
    const n = 8;
    const results = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        addLayer(db(), { mission, layer: { name: `L${i}`, type: 'tile', url: `u${i}` } }),
      ),
    );
    const versions = results.map((r) => r.version).sort((a, b) => a - b);
    expect(versions).toEqual(Array.from({ length: n }, (_, i) => i + 2));
    const latest = await readLatest(db().sql, mission);
    expect(latest!.version).toBe(n + 1);
    expect(latest!.config.layers.map((l: any) => l.name).sort()).toEqual(
      Array.from({ length: n }, (_, i) => `L${i}`).sort(),
    );
    const rows = await db()
      .sql`select count(distinct version)::int as v, count(*)::int as n from configs where mission = ${mission}`;
    expect(rows[0]).toEqual({ v: n + 1, n: n + 1 });
  });

  it('parallel first upserts of a new mission never collide', async () => {
    const mission = uniqueName('race');
    const results = await Promise.all(
      [0, 1, 2, 3, 4].map((i) => upsert(db(), { mission, config: config([], [i, i, i]) })),
    );
    expect(results.map((r) => r.version).sort()).toEqual([1, 2, 3, 4, 5]);
  });

  it('stores nothing when the change throws or the result is invalid', async () => {
    const mission = uniqueName('st');
    await upsert(db(), { mission, config: config() });
    const thrown = commitChange(db(), mission, () => {
      throw new HttpError(418, 'no');
    });
    expect(await status(thrown)).toBe(418);
    const invalid = commitChange(db(), mission, () => ({ config: { msv: {} }, extra: null }));
    expect(await status(invalid)).toBe(400);
    expect((await listVersions(db().sql, mission)).length).toBe(1);
  });

  it('a no-op change keeps the version', async () => {
    const mission = uniqueName('st');
    await upsert(db(), { mission, config: config() });
    const res = await updateInitialView(db(), { mission, latitude: 1, longitude: 2, zoom: 3 });
    expect(res.version).toBe(1);
    expect(res.changed).toBe(false);
  });

  it('reads the latest of each mission and destroys all versions', async () => {
    const a = uniqueName('st');
    const b = uniqueName('st');
    await upsert(db(), { mission: a, config: config() });
    await upsert(db(), { mission: a, config: config([], [9, 9, 9]) });
    await upsert(db(), { mission: b, config: config() });
    const both = await readLatestOfEach(db().sql, [b, a]);
    expect(both.map((r) => [r.mission, r.version])).toEqual([a, b].sort().map((m) => [m, m === a ? 2 : 1]));
    expect(await destroyMission(db(), a)).toBe(2);
    expect(await readLatest(db().sql, a)).toBeUndefined();
    expect(await status(destroyMission(db(), a))).toBe(404);
  });

  it('warns about geodataset urls only when the geodataset does not exist', async () => {
    const name = uniqueName('gd');
    const cfg = config([
      { name: 'v', type: 'vector', url: `geodatasets:${name}` },
      { name: 'w', type: 'vector', url: `geodatasets:${name}_missing` },
    ]);
    // The catalog row exists only inside this transaction, which is rolled back.
    const rollback = new Error('rollback');
    const result = await db()
      .transaction(async (tx) => {
        await tx`insert into geodatasets (name, table_name) values (${name}, ${`gd_test_${name}`})`;
        const res = await validateWithDatasets(tx, cfg);
        throw Object.assign(rollback, { res });
      })
      .catch((e) => (e === rollback ? (e as any).res : Promise.reject(e)));
    expect(result.valid).toBe(true);
    expect(result.warnings.map((w: any) => w.invalidFields)).toEqual([['layers[1].url']]);
  });
});

describe('push', () => {
  it('counts an unreachable endpoint as failed without throwing', async () => {
    const mission = uniqueName('push');
    const sql = db().sql;
    const id = uniqueName('conn');
    await sql`insert into ws_connections (connection_id, endpoint) values (${id}, 'http://127.0.0.1:9')`;
    await sql`insert into ws_subscriptions (connection_id, mission) values (${id}, ${mission})`;
    const counts = await pushToMission(sql, {
      type: 'config',
      action: 'upsert',
      mission,
      version: 1,
      forceClientUpdate: true,
    });
    expect(counts).toEqual({ sent: 0, gone: 0, failed: 1 });
    // Not gone (unreachable is not 410): the row stays until $disconnect or the stale sweep.
    expect(await sql`select 1 from ws_connections where connection_id = ${id}`).toHaveLength(1);
    await sql`delete from ws_connections where connection_id = ${id}`;
  });

  it('pushes nothing for a mission without subscribers', async () => {
    const counts = await pushToMission(db().sql, {
      type: 'config',
      action: 'upsert',
      mission: uniqueName('none'),
      version: 1,
      forceClientUpdate: true,
    });
    expect(counts).toEqual({ sent: 0, gone: 0, failed: 0 });
  });
});
