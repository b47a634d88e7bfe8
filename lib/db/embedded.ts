import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { postgis } from '@electric-sql/pglite-postgis';
import { envText } from '#lib/settings.ts';
import { PGliteWireServer } from './pgliteServer.ts';

export interface EmbeddedDatabase {
  url: string;
  dataDir: string;
  stop(): Promise<void>;
}

/** A free loopback TCP port. */
export function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const srv = createServer();
    srv.once('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => ok(port));
    });
  });
}

/**
 * Starts PGlite with PostGIS on `dataDir` (created when missing; `memory://` for a throwaway one) and
 * serves it on a loopback port, so the ordinary postgres.js driver reaches it with `url`.
 */
export async function startEmbedded(
  dataDir = envText('DATA_DIR') ?? '.data/pglite',
  port?: number,
): Promise<EmbeddedDatabase> {
  const dir = dataDir.startsWith('memory://') ? dataDir : resolve(dataDir);
  if (!dir.startsWith('memory://')) mkdirSync(dir, { recursive: true });
  const db = await PGlite.create({ dataDir: dir, extensions: { postgis } });
  await db.exec('create extension if not exists postgis');
  const p = port ?? (await freePort());
  const server = new PGliteWireServer(db);
  await server.listen(p);
  return {
    // `embedded=pglite` tells createDb to use unnamed statements (one shared session, see pgliteServer.ts).
    url: `postgres://postgres:postgres@127.0.0.1:${p}/postgres?sslmode=disable&embedded=pglite`,
    dataDir: dir,
    async stop() {
      await server.close();
      await db.close();
    },
  };
}
