import { readdirSync } from 'node:fs';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDataApiDb } from '#lib/db/dataApi/index.ts';
import { type Db, probe } from '#lib/db/index.ts';
import { migrate, migrationsDir } from '#lib/db/migrate.ts';
import { type StandIn, startDataApiStandIn } from '../../local/dataApi/standIn.ts';
import { type EmbeddedDatabase, startEmbedded } from '../../local/embedded/start.ts';
import { isEmbedded, uniqueName } from '../helpers.ts';

/**
 * The migrations through the Data API driver on an empty database (docs/deploying.md, "Limits"): the
 * `MigrateOnDeploy` custom resource's path. The stand-in, like the Data API, runs one statement per call,
 * so a file sent whole is refused (PostgreSQL's own 42601); the runner sends each file's statements one by
 * one. On the server a database of this file's own; on the embedded one a PGlite of its own.
 */

let own: EmbeddedDatabase | null = null;
let url: string;
let dropDatabase = async () => {};
let standIn: StandIn;
let api: Db;

beforeAll(async () => {
  if (isEmbedded()) {
    own = await startEmbedded('memory://');
    url = own.url;
  } else {
    const admin = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => {} });
    const name = uniqueName('mmgis_migrate');
    await admin.unsafe(`create database ${name}`);
    const u = new URL(process.env.DATABASE_URL!);
    u.pathname = `/${name}`;
    url = u.toString();
    dropDatabase = async () => {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    };
  }
  standIn = await startDataApiStandIn({ databaseUrl: url });
  api = createDataApiDb(
    {
      resourceArn: 'arn:aws:rds:us-east-1:000000000000:cluster:test',
      secretArn: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:test',
      database: 'postgres',
      endpoint: standIn.endpoint,
    },
    probe,
  );
}, 180_000);

afterAll(async () => {
  await api?.end();
  await standIn?.stop();
  await own?.stop();
  await dropDatabase();
});

describe('migrations through the Data API', () => {
  it('the stand-in refuses text holding two statements, in a transaction or not', async () => {
    const refusal = { code: '42601', kind: 'DatabaseErrorException' };
    await expect(api.sql.unsafe('select 1; select 2')).rejects.toMatchObject(refusal);
    await expect(api.transaction((tx) => tx.unsafe('select 1; select 2'))).rejects.toMatchObject(refusal);
    // One statement with a semicolon inside a string or a dollar-quoted body is one statement.
    const [row] = await api.sql.unsafe(`select 'a;b' as s, $$c;d$$ as t`);
    expect(row).toEqual({ s: 'a;b', t: 'c;d' });
  });

  it('an empty database gets every migration, statement by statement', async () => {
    const files = readdirSync(migrationsDir()).filter((f) => /^\d+_.*\.sql$/.test(f));
    const before = standIn.stats['/Execute'] ?? 0;
    const applied = await migrate(api.sql);
    expect(applied).toEqual([...files].sort());
    // More calls than files: the multi-statement files went one statement per call.
    expect((standIn.stats['/Execute'] ?? 0) - before).toBeGreaterThan(files.length + 60);
    const direct = postgres(url, { max: 1, onnotice: () => {} });
    try {
      const recorded = await direct`select name from schema_migrations order by name`;
      expect(recorded.map((r) => r.name)).toEqual([...files].sort());
      // The functions with dollar-quoted bodies, from multi-statement files, are there.
      const fns = await direct`
        select proname from pg_proc
        where proname in ('draw_files_keep_former_owner', 'geodataset_px_recompute', 'mmgis_to_timestamp_or_null')
        order by proname`;
      expect(fns.map((r) => r.proname)).toEqual([
        'draw_files_keep_former_owner',
        'geodataset_px_recompute',
        'mmgis_to_timestamp_or_null',
      ]);
    } finally {
      await direct.end();
    }
    // Run again: nothing left to apply.
    expect(await migrate(api.sql)).toEqual([]);
  });
});
