import { randomBytes } from 'node:crypto';
import { copyFile, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { migrate } from '#lib/db/migrate.ts';
import { startEmbedded } from '../../local/embedded/start.ts';

/**
 * The migration that makes draw files belong to accounts (docs/draw.md, "Ownership") maps the names
 * stored before it to user ids: a name with no user becomes no owner, no editor, no author. Run on its
 * own empty database (a new one on the suite's server, else an in-memory PGlite): the migrations before
 * it, rows as they stored names, then it.
 */
const OWNERSHIP = '0012_draw_owner_ids.sql';
let db: { url: string; stop(): Promise<void> };
let sql: postgres.Sql;
let dir: string;

/** A new empty database beside the suite's: on its server, or (embedded) a PGlite of its own. */
async function emptyDatabase(): Promise<typeof db> {
  if (inject('embedded')) return startEmbedded('memory://');
  const admin = postgres(inject('databaseUrl'), { max: 1, onnotice: () => {} });
  const name = `mmgis_migration_${randomBytes(4).toString('hex')}`;
  await admin.unsafe(`create database ${name}`);
  const u = new URL(inject('databaseUrl'));
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    async stop() {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

beforeAll(async () => {
  db = await emptyDatabase();
  sql = postgres(db.url, { max: 1, onnotice: () => {} });
  dir = await mkdtemp(join(tmpdir(), 'migrations-'));
  const all = resolve('sql/migrations');
  for (const f of await readdir(all)) if (f < OWNERSHIP) await copyFile(join(all, f), join(dir, f));
  await migrate(sql, dir);
}, 120_000);

afterAll(async () => {
  await sql?.end();
  await db?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe(`migration ${OWNERSHIP}`, () => {
  it('maps owners, editors and authors by name to user ids; unknown names to none', async () => {
    const [alice] = await sql`
      insert into users (username, password_hash) values ('alice', 'x') returning id`;
    const [bob] = await sql`insert into users (username, password_hash) values ('bob', 'x') returning id`;
    const [mine] = await sql`
      insert into draw_files (file_owner, file_name, public, publicity_type, public_editors)
      values ('alice', 'a', '0', 'list_edit', '{bob,ghost}') returning id`;
    const [lost] = await sql`
      insert into draw_files (file_owner, file_name) values ('ghost', 'g') returning id`;
    await sql`
      insert into draw_history (file_id, history_id, time, action_index, author)
      values (${mine.id}, 0, 1, 0, 'alice'), (${mine.id}, 1, 2, 1, 'ghost')`;
    await sql`insert into draw_publishes (time, author, hierarchy) values (3, 'bob', '[]')`;

    await copyFile(resolve('sql/migrations', OWNERSHIP), join(dir, OWNERSHIP));
    expect(await migrate(sql, dir)).toEqual([OWNERSHIP]);

    const files = await sql`
      select id, owner_id, former_owner, is_master from draw_files where id in (${mine.id}, ${lost.id}) order by id`;
    expect(files.map((f) => [Number(f.owner_id) || null, f.former_owner])).toEqual([
      [Number(alice.id), null],
      [null, 'ghost'],
    ]);
    const masters = await sql`select owner_id, former_owner from draw_files where is_master`;
    expect(masters).toHaveLength(6);
    expect(masters.every((m) => m.owner_id === null && m.former_owner === null)).toBe(true);
    const editors = await sql`select user_id from draw_file_editors where file_id = ${mine.id}`;
    expect(editors.map((e) => Number(e.user_id))).toEqual([Number(bob.id)]);
    const authors = await sql`
      select author_id from draw_history where file_id = ${mine.id} order by history_id`;
    expect(authors.map((a) => (a.author_id === null ? null : Number(a.author_id)))).toEqual([
      Number(alice.id),
      null,
    ]);
    const [publish] = await sql`select author_id from draw_publishes`;
    expect(Number(publish.author_id)).toBe(Number(bob.id));
  });

  it('removing a user leaves their files owned by no one, keeping the name for administrators', async () => {
    await sql`delete from users where username = 'alice'`;
    const [f] = await sql`select owner_id, former_owner from draw_files where file_name = 'a'`;
    expect(f).toEqual({ owner_id: null, former_owner: 'alice' });
    await sql`delete from users where username = 'bob'`;
    expect(await sql`select * from draw_file_editors`).toHaveLength(0);
  });
});
