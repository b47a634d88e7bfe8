/**
 * `npm run bench:draw-getfile` — `files/getfile` with many ids (docs/draw.md, "Bodies"): the per-id
 * reading it replaced (two queries per id: file row, snapshot) against `getFiles` (three queries
 * whatever the number of ids), in a fresh database on the PostGIS server (DATABASE_URL or the local
 * default) created and dropped here. Prints milliseconds per request (median of the runs) and queries.
 */
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { createDb, type Db } from '../lib/db/index.ts';
import { type Caller, fileFor } from '../lib/draw/access.ts';
import { makeFile } from '../lib/draw/files.ts';
import { snapshotAt } from '../lib/draw/history.ts';
import { featuresById, getFiles } from '../lib/draw/read.ts';
import { prepareDatabase } from '../local/devServer.ts';

const SERVER = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const RUNS = 7;

/** The reading `getfile` did before: each id its file row and its snapshot, one after the other. */
async function perId(db: Db, c: Caller, ids: number[]) {
  const files = [];
  const features: number[] = [];
  for (const id of ids) {
    files.push(await fileFor(db.sql, id, c, 'read'));
    const s = await snapshotAt(db.sql, id);
    if (s) features.push(...s.history);
  }
  return { file: files, geojson: await featuresById(db.sql, features) };
}

async function median(run: () => Promise<unknown>): Promise<number> {
  await run();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    await run();
    times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b)[Math.floor(RUNS / 2)];
}

async function main() {
  const name = `bench_draw_${randomBytes(4).toString('hex')}`;
  const admin = postgres(SERVER, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const url = SERVER.replace(/\/[^/]*$/, `/${name}`);
  try {
    await prepareDatabase(url, undefined);
    const db = createDb({ url, max: 4 });
    const [u] = await db.sql<{ id: number }[]>`
      insert into users (username, password_hash) values ('bench', 'x') returning id`;
    const c: Caller = { id: Number(u.id), username: 'bench', admin: false };
    const ids: number[] = [];
    for (let i = 0; i < 10_000; i++) ids.push(await makeFile(db.sql, c, { file_name: `f${i}` }));
    console.log('ids  per-id (old)  getFiles (new)  queries old/new');
    for (const n of [1, 10, 100, 1000, 10_000]) {
      const some = ids.slice(0, n);
      const old = await median(() => perId(db, c, some));
      const now = await median(() => getFiles(db.sql, c, { ids: some, published: false }));
      console.log(
        `${String(n).padStart(5)}  ${old.toFixed(1).padStart(10)} ms  ${now.toFixed(1).padStart(11)} ms  ${2 * n + 1}/3`,
      );
    }
    await db.end();
  } finally {
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

await main();
