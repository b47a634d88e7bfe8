// Plain JavaScript, so that local/start.mjs can start a new data folder's initdb before its build is done
// (docs/connections.md, "The embedded database's first start"); local/embedded/start.ts uses it too.
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, renameSync, rmdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

/**
 * V8 flags of the initdb process. It runs once and briefly, beside the local build and serverless-offline's
 * start on as few as two cores: WebAssembly's baseline compiler alone, and no helper threads, spend about
 * 7 s of CPU where the defaults spend 10 s (docs/connections.md, "The embedded database's first start").
 */
const INITDB_FLAGS = ['--liftoff-only', '--single-threaded'];

/**
 * A new data folder's `initdb`, in a process of its own: the process that runs PGlite's initdb keeps the
 * memory it grew to (about 700 MB) (docs/connections.md, "The embedded database's memory"). Made in a
 * sibling folder and renamed into place, so a start stopped half-way leaves no half-made folder behind.
 */
async function initdbApart(dir, signal) {
  const pglite = pathToFileURL(createRequire(import.meta.url).resolve('@electric-sql/pglite')).href;
  const code =
    'const { PGlite } = await import(process.argv[1]); const db = await PGlite.create({ dataDir: process.argv[2] }); await db.close();';
  const made = `${dir}.initdb`;
  rmSync(made, { recursive: true, force: true });
  await new Promise((done, fail) => {
    const args = [...INITDB_FLAGS, '--input-type=module', '-e', code, pglite, made];
    const child = execFile(process.execPath, args, (e) => (e ? fail(e) : done(undefined)));
    // Killed at once, so that the caller may exit right after it aborts.
    signal?.addEventListener('abort', () => child.kill('SIGKILL'), { once: true });
  });
  rmdirSync(dir);
  renameSync(made, dir);
}

/**
 * Makes `dir` (an absolute path) ready for PGlite: created when missing, and given a database by
 * `initdb` when empty. A folder that holds something else is left to PGlite, which makes its database in it.
 * `signal` ends the initdb process (local/start.mjs on Ctrl-C or SIGTERM).
 */
export async function prepareDataFolder(dir, signal) {
  mkdirSync(dir, { recursive: true });
  if (readdirSync(dir).length === 0) await initdbApart(dir, signal);
}
