import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db, getDb } from '#lib/db/index.ts';
import { migrate } from '#lib/db/migrate.ts';
import { findDataset, type Geodataset } from '#lib/geodatasets/catalog.ts';
import { convertProperties, recomputeMissingStats, recomputeStats } from '#lib/geodatasets/manage.ts';
import { appendGeodataset, recreateGeodataset } from '#lib/geodatasets/write/write.ts';
import { type EmbeddedDatabase, startEmbedded } from '../../local/embedded/start.ts';
import { isEmbedded, uniqueName } from '../helpers.ts';

/**
 * The suite's database, or on the embedded one a PGlite of this file's own: the embedded database serves
 * one transaction at a time (docs/connections.md, "The embedded database's wire server"), and this file's
 * writes of 200,000 rows would hold every other file's requests behind them past a function's timeout.
 */
let db: Db = getDb();
let own: EmbeddedDatabase | null = null;
beforeAll(async () => {
  if (!isEmbedded()) return;
  own = await startEmbedded('memory://');
  db = createDb({ url: own.url, max: 2 });
  await migrate(db.sql);
}, 180_000);
afterAll(async () => {
  if (!own) return;
  await db.end();
  await own.stop();
});

function pt(lon: number, lat: number, properties: Record<string, unknown> | null = {}) {
  return { type: 'Feature', geometry: { type: 'Point', coordinates: [lon, lat] }, properties };
}
const fc = (features: unknown[]) => ({ type: 'FeatureCollection', features });
const many = (n: number, offset = 0) =>
  Array.from({ length: n }, (_, i) =>
    pt(((i + offset) % 360) - 180, ((i + offset) % 180) - 90, { k: i + offset }),
  );

/** Everything a write could change: the catalog row and the rows of its table. */
async function snapshot(name: string) {
  const ds = (await findDataset(db.sql, name)) as Geodataset;
  const rows = await db.sql.unsafe(
    `select id, ST_AsText(geom) as g, properties::text as p, start_time, end_time, group_id, feature_id from ${ds.table} order by id`,
  );
  return { ds, rows: rows.map((r) => ({ ...r })) };
}

/**
 * The tables of one dataset (`gd_<id>_<generation>`) as a pattern. Not LIKE's `gd_<id>_%`: its `_` is any
 * character, so dataset 12's pattern also counted the tables of datasets 120–129, 1200… that other test
 * files create meanwhile.
 */
const tablesOf = (id: string | number) => `^gd_${id}_[0-9]+$`;

const forced = (at: number) => (n: number) => {
  if (n === at) throw new Error(`forced failure after batch ${n}`);
};

describe('atomicity', () => {
  it('an invalid last feature of 200,001 leaves a recreate and an append without effect', async () => {
    const name = uniqueName('gdat');
    await recreateGeodataset(db, fc(many(30)), { name, groupIdProp: 'k' });
    const before = await snapshot(name);
    // As JSON text, the way a request body arrives (features parsed one at a time).
    const bad = JSON.stringify(fc([...many(200_000), pt(0, 95)]));
    await expect(recreateGeodataset(db, bad, { name })).rejects.toMatchObject({
      statusCode: 400,
      message: expect.stringMatching(/^Feature 200000: .*latitude 95/),
    });
    await expect(appendGeodataset(db, bad, { name })).rejects.toMatchObject({
      statusCode: 400,
      message: expect.stringMatching(/^Feature 200000: /),
    });
    expect(await snapshot(name)).toEqual(before);
    const [orphans] =
      await db.sql`select count(*)::int as n from pg_tables where tablename ~ ${tablesOf(before.ds.id)}`;
    expect(orphans.n).toBe(1);
  }, 300_000);

  it('a failure mid-insert (after some batches reached the database) changes nothing', async () => {
    const name = uniqueName('gdat');
    await recreateGeodataset(db, fc(many(25)), { name });
    const before = await snapshot(name);
    await expect(
      recreateGeodataset(db, fc(many(100)), { name }, { batchSize: 10, afterBatch: forced(3) }),
    ).rejects.toThrow(/forced/);
    await expect(
      appendGeodataset(db, fc(many(100)), { name }, { batchSize: 10, afterBatch: forced(5) }),
    ).rejects.toThrow(/forced/);
    expect(await snapshot(name)).toEqual(before);
    // a failing create leaves no dataset at all
    const fresh = uniqueName('gdat');
    await expect(
      recreateGeodataset(db, fc(many(50)), { name: fresh }, { batchSize: 10, afterBatch: forced(2) }),
    ).rejects.toThrow(/forced/);
    expect(await findDataset(db.sql, fresh)).toBeUndefined();
  });

  it.skipIf(isEmbedded())('a dropped connection mid-append changes nothing (server)', async () => {
    const name = uniqueName('gdat');
    await recreateGeodataset(db, fc(many(20)), { name });
    const before = await snapshot(name);
    // Its own pool, so the killed connection never returns to the shared one.
    const own = createDb({ max: 2 });
    const kill = async (n: number, tx: any) => {
      if (n !== 2) return;
      const [{ pid }] = await tx`select pg_backend_pid() as pid`;
      await db.sql`select pg_terminate_backend(${pid})`;
      // Let the client see the socket close before it writes the next batch (a write racing the close
      // trips an internal null socket in postgres.js 3.4.9).
      await new Promise((ok) => setTimeout(ok, 500));
    };
    try {
      await expect(
        appendGeodataset(own, fc(many(100)), { name }, { batchSize: 10, afterBatch: kill }),
      ).rejects.toThrow();
    } finally {
      await own.end().catch(() => {});
    }
    expect(await snapshot(name)).toEqual(before);
  });

  it.skipIf(isEmbedded())('readers see the old rows while a recreate is in progress (server)', async () => {
    const name = uniqueName('gdat');
    await recreateGeodataset(db, fc(many(7)), { name });
    const seen: number[] = [];
    const look = async (n: number) => {
      if (n !== 3) return;
      const ds = (await findDataset(db.sql, name))!;
      const [c] = await db.sql.unsafe(`select count(*)::int as n from ${ds.table}`);
      seen.push(ds.numFeatures, c.n);
    };
    await recreateGeodataset(db, fc(many(100)), { name }, { batchSize: 10, afterBatch: look });
    expect(seen).toEqual([7, 7]);
    expect((await findDataset(db.sql, name))!.numFeatures).toBe(100);
  });
  it.skipIf(isEmbedded())(
    'a reader queued behind the swap reads the new rows, not a dropped table (server)',
    async () => {
      const name = uniqueName('gdat');
      await recreateGeodataset(db, fc(many(7)), { name });
      const table = (await findDataset(db.sql, name))!.table;
      const other = createDb({ max: 2 });
      try {
        let release!: () => void;
        const held = new Promise<void>((ok) => {
          release = ok;
        });
        let locked!: () => void;
        const hasLock = new Promise<void>((ok) => {
          locked = ok;
        });
        // A long reader holds the old table, so the recreate's drop must wait for it.
        const hold = other.sql.begin(async (tx) => {
          await tx.unsafe(`select count(*) from ${table}`);
          locked();
          await held;
        });
        await hasLock;
        const rec = recreateGeodataset(db, fc(many(100)), { name });
        for (let i = 0; i < 200; i++) {
          const [w] = await db.sql`
          select count(*)::int as n from pg_locks l join pg_class c on c.oid = l.relation
          where c.relname = ${table} and not l.granted`;
          if (w.n > 0) break;
          await new Promise((ok) => setTimeout(ok, 50));
        }
        // This reader looked the name up before the commit and now waits behind the swap.
        const reader = other.sql.unsafe(`select count(*)::int as n from ${table}`);
        await new Promise((ok) => setTimeout(ok, 200));
        release();
        await hold;
        await rec;
        expect((await reader)[0].n).toBe(100);
        expect((await findDataset(db.sql, name))!.table).toBe(table);
      } finally {
        await other.end();
      }
    },
  );
});

describe('concurrency', () => {
  it('parallel appends lose no feature and no stats update', async () => {
    const name = uniqueName('gdcc');
    await recreateGeodataset(db, fc([pt(0, 0, { v: 0 })]), { name });
    const n = 6;
    const per = 40;
    const results = await Promise.all(
      Array.from({ length: n }, (_, j) =>
        appendGeodataset(
          db,
          fc(Array.from({ length: per }, (_, i) => pt(1, 1, { v: j * per + i + 1 }))),
          { name },
          { batchSize: 7 },
        ),
      ),
    );
    expect(results.map((r) => r.added)).toEqual(Array(n).fill(per));
    const total = 1 + n * per;
    const ds = (await findDataset(db.sql, name))!;
    expect(ds.numFeatures).toBe(total);
    const [c] = await db.sql.unsafe(`select count(*)::int as n from ${ds.table}`);
    expect(c.n).toBe(total);
    // values 0..240: sum = 240*241/2, sumsq = 240*241*481/6
    const m = n * per;
    expect(ds.fieldStats).toEqual({
      v: {
        type: 'number',
        min: 0,
        max: m,
        sum: (m * (m + 1)) / 2,
        sumsq: (m * (m + 1) * (2 * m + 1)) / 6,
        count: total,
      },
    });
  });

  it('concurrent creates of one new name end as one dataset holding both', async () => {
    const name = uniqueName('gdcc');
    await Promise.all([
      appendGeodataset(db, fc(many(5)), { name }),
      appendGeodataset(db, fc(many(3)), { name }),
    ]);
    const ds = (await findDataset(db.sql, name))!;
    expect(ds.numFeatures).toBe(8);
  });
});

describe('field_stats', () => {
  it('follows the numeric rule of docs/contract.md#5-edge-cases-decided', async () => {
    const name = uniqueName('gdfs');
    const values: unknown[] = [
      12,
      '12',
      '-3.5e2',
      '12abc',
      '',
      true,
      null,
      { a: 1 },
      '.5',
      '5.',
      '+5',
      ' 5',
      'NaN',
      'Infinity',
      [1],
      1e3,
    ];
    await recreateGeodataset(
      db,
      fc(values.map((v, i) => pt(0, 0, { v, some: i % 4 === 0 ? i : 'text', none: 'abc' }))),
      { name },
    );
    const ds = (await findDataset(db.sql, name))!;
    // counted for v: 12, '12', '-3.5e2', '.5', '5.', 1000
    const nums = [12, 12, -350, 0.5, 5, 1000];
    const sum = nums.reduce((a, b) => a + b, 0);
    const sumsq = nums.reduce((a, b) => a + b * b, 0);
    expect(ds.fieldStats!.v).toEqual({ type: 'number', min: -350, max: 1000, sum, sumsq, count: 6 });
    // 'some' is numeric in indexes 0, 4, 8, 12 only
    expect(ds.fieldStats!.some).toEqual({ type: 'number', min: 0, max: 12, sum: 24, sumsq: 224, count: 4 });
    expect(ds.fieldStats!.none).toBeUndefined();
  });

  it('widening by appends equals a full recompute; absent stays absent; recompute fills it', async () => {
    const name = uniqueName('gdfs');
    const vals = (o: number) =>
      Array.from({ length: 50 }, (_, i) =>
        pt(0, 0, { a: (i * 7 + o) % 13, b: `${i / 4}`, c: i % 3 ? null : i * 0.1 }),
      );
    await recreateGeodataset(db, fc(vals(0)), { name });
    await appendGeodataset(db, fc(vals(3)), { name });
    await appendGeodataset(db, fc(vals(5)), { name });
    const widened = (await findDataset(db.sql, name))!.fieldStats!;
    await recomputeStats(db, name);
    const full = (await findDataset(db.sql, name))!.fieldStats!;
    expect(Object.keys(widened).sort()).toEqual(Object.keys(full).sort());
    for (const k of Object.keys(full)) {
      expect(widened[k].min).toBe(full[k].min);
      expect(widened[k].max).toBe(full[k].max);
      expect(widened[k].count).toBe(full[k].count);
      expect(widened[k].sum).toBeCloseTo(full[k].sum, 9);
      expect(widened[k].sumsq).toBeCloseTo(full[k].sumsq, 9);
    }
    // a dataset without stats (older data): append leaves it absent, the schedule computes it. Other test
    // files run the schedule too (it recomputes every dataset without stats): in one of three tries, the
    // stats stay absent after the append and this run is the one that computes them.
    let appended = 0;
    let absent = false;
    let done = { recomputed: [] as string[], failed: [] as string[] };
    for (let i = 0; i < 3 && !(absent && done.recomputed.includes(name)); i++) {
      await db.sql`update geodatasets set field_stats = null where name = ${name}`;
      await appendGeodataset(db, fc(vals(1)), { name });
      appended++;
      absent = (await findDataset(db.sql, name))!.fieldStats === null;
      if (absent) done = await recomputeMissingStats(db);
    }
    expect(absent).toBe(true);
    expect(done.recomputed).toContain(name);
    expect((await findDataset(db.sql, name))!.fieldStats!.a.count).toBe(150 + 50 * appended);
  });

  it('recompute reads json datasets and skips legacy rows whose properties are not objects', async () => {
    const name = uniqueName('gdfs');
    await recreateGeodataset(
      db,
      fc([pt(0, 0, { q: 1 }), pt(0, 0, { q: '2', r: 'x', big: '1e400' })]),
      { name },
      { propertiesType: 'json' },
    );
    const ds = (await findDataset(db.sql, name))!;
    await db.sql.unsafe(
      `insert into ${ds.table} (geom, properties) values (ST_SetSRID(ST_MakePoint(0, 0), 4326), '[1, 2]'::json)`,
    );
    await db.sql`update geodatasets set field_stats = null, num_features = 3 where id = ${ds.id}`;
    await recomputeStats(db, name);
    expect((await findDataset(db.sql, name))!.fieldStats).toEqual({
      q: { type: 'number', min: 1, max: 2, sum: 3, sumsq: 5, count: 2 },
    });
  });

  it('an append that creates the dataset computes stats', async () => {
    const name = uniqueName('gdfs');
    await appendGeodataset(db, fc([pt(0, 0, { x: 2 }), pt(0, 0, { x: '4' })]), { name });
    expect((await findDataset(db.sql, name))!.fieldStats).toEqual({
      x: { type: 'number', min: 2, max: 4, sum: 6, sumsq: 20, count: 2 },
    });
  });
});

describe('storage', () => {
  it('a json dataset takes appends and converts to jsonb with its data unchanged', async () => {
    const name = uniqueName('gdjs');
    const props = (i: number) => ({ i, s: `s${i}`, nested: { a: [i, null, true] }, 'dot.key': 'x' });
    await recreateGeodataset(
      db,
      fc(Array.from({ length: 20 }, (_, i) => pt(i, i, props(i)))),
      { name },
      { propertiesType: 'json' },
    );
    await appendGeodataset(db, fc([pt(50, 50, props(99))]), { name, featureIdProp: 's' });
    const ds = (await findDataset(db.sql, name))!;
    expect(ds.propertiesType).toBe('json');
    const [t] =
      await db.sql`select data_type from information_schema.columns where table_name = ${ds.table} and column_name = 'properties'`;
    expect(t.data_type).toBe('json');
    const read = async () => {
      const d = (await findDataset(db.sql, name))!;
      return db.sql.unsafe(
        `select id, ST_AsText(geom) g, properties::jsonb p, feature_id from ${d.table} order by id`,
      );
    };
    const before = (await read()).map((r) => ({ ...r }));
    expect(await convertProperties(db, name)).toEqual({ name, converted: true });
    const after = await findDataset(db.sql, name);
    expect(after!.propertiesType).toBe('jsonb');
    expect(after!.version).toBeGreaterThan(ds.version);
    expect(after!.fieldStats).toEqual(ds.fieldStats);
    expect((await read()).map((r) => ({ ...r }))).toEqual(before);
    expect(before[20].p).toEqual(props(99));
    expect(await convertProperties(db, name)).toEqual({ name, converted: false });
  });

  it('accepts a single Feature, JSON text, empty collections and rewinds polygons', async () => {
    const name = uniqueName('gdst');
    const cw = {
      type: 'Feature',
      geometry: {
        type: 'Polygon',
        coordinates: [
          [
            [0, 0],
            [0, 1],
            [1, 1],
            [1, 0],
            [0, 0],
          ],
        ],
      },
      properties: null,
    };
    expect(await recreateGeodataset(db, cw, { name })).toEqual({ name, num_features: 1, added: 1 });
    const ds = (await findDataset(db.sql, name))!;
    const [r] = await db.sql.unsafe(`select ST_IsPolygonCCW(geom) ccw, properties::text p from ${ds.table}`);
    expect(r.ccw).toBe(true);
    expect(r.p).toBe('{}');
    expect(await appendGeodataset(db, JSON.stringify(fc([pt(1, 2)])), { name })).toEqual({
      name,
      num_features: 2,
      added: 1,
    });
    expect(await recreateGeodataset(db, fc([]), { name })).toEqual({ name, num_features: 0, added: 0 });
    expect((await findDataset(db.sql, name))!.version).toBe(ds.version + 2);
    const [tables] =
      await db.sql`select count(*)::int as n from pg_tables where tablename ~ ${tablesOf(ds.id)}`;
    expect(tables.n).toBe(1);
  });

  it('recreate restarts internal ids at 1 and replaces the catalog props', async () => {
    const name = uniqueName('gdst');
    await recreateGeodataset(db, fc(many(5)), { name, startProp: 'a', filename: 'one' });
    await recreateGeodataset(db, fc(many(3)), { name });
    const ds = (await findDataset(db.sql, name))!;
    expect([ds.startProp, ds.filename, ds.numFeatures]).toEqual([null, null, 3]);
    const ids = await db.sql.unsafe(`select id from ${ds.table} order by id`);
    expect(ids.map((r) => r.id)).toEqual([1, 2, 3]);
  });
});
