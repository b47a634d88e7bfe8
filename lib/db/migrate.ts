import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { envText } from '#lib/settings.ts';
import type { Sql } from './index.ts';

/** Where the numbered `.sql` migrations live (`MIGRATIONS_DIR` overrides; packaged next to each function). */
export function migrationsDir(): string {
  return resolve(envText('MIGRATIONS_DIR') ?? 'sql/migrations');
}

/**
 * Applies every `sql/migrations/NNNN_*.sql` not yet recorded in `schema_migrations`, each in its own
 * transaction, under an advisory lock so two starters never race. Safe to run on every start.
 */
export async function migrate(sql: Sql, dir = migrationsDir()): Promise<string[]> {
  const files = (await readdir(dir)).filter((f) => /^\d+_.*\.sql$/.test(f)).sort();
  const applied: string[] = [];
  await sql`create table if not exists schema_migrations (name text primary key, applied_at timestamptz not null default now())`;
  await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(727274)`;
    const done = new Set((await tx`select name from schema_migrations`).map((r) => r.name as string));
    for (const file of files) {
      if (done.has(file)) continue;
      const text = await readFile(join(dir, file), 'utf8');
      await tx.unsafe(text);
      await tx`insert into schema_migrations (name) values (${file})`;
      applied.push(file);
    }
  });
  return applied;
}
