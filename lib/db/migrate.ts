import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { setting } from '#lib/settings.ts';
import type { Sql } from './index.ts';
import { splitStatements } from './splitStatements.ts';

/**
 * Where the numbered `.sql` migrations live: `MIGRATIONS_DIR`, else `sql/migrations` under the working folder.
 * Deployed, only the `migrate` function packages them (serverless/core.yml).
 */
export function migrationsDir(): string {
  return resolve(setting('MIGRATIONS_DIR'));
}

/**
 * Applies every `sql/migrations/NNNN_*.sql` not yet recorded in `schema_migrations`, in one transaction
 * under an advisory lock so two starters never apply a file twice (the `schema_migrations` table itself is
 * created before it, `if not exists`). Safe to run on every start. Each file is sent one
 * statement at a time (`splitStatements`) on every driver: the RDS Data API runs one statement per call
 * (docs/deploying.md, "Limits"), and postgres.js and the embedded database take the same path.
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
      for (const statement of splitStatements(text)) await tx.unsafe(statement);
      await tx`insert into schema_migrations (name) values (${file})`;
      applied.push(file);
    }
  });
  return applied;
}
