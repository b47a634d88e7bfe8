import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { setting } from '#lib/settings.ts';
import { prepareDataFolder } from './dataFolder.mjs';
import { trimmedPostgis } from './postgisBundle.mjs';
import { PGliteWireServer } from './wireServer.ts';

export interface EmbeddedDatabase {
  /** The URL the functions connect with: user `postgres`, this start's random password. */
  url: string;
  dataDir: string;
  stop(): Promise<void>;
}

/**
 * The embedded database's memory settings (docs/connections.md, "The embedded database's memory"): its
 * WebAssembly heap never gives back what it grew to, so what PostgreSQL may use is what `npm start` holds.
 */
export const EMBEDDED_SETTINGS = 'shared_buffers = 32MB\n';

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

/** A start's random password of the embedded database. */
export function newPassword(): string {
  return randomBytes(18).toString('base64url');
}

/** The URL of the embedded database on `port`: known before it opens, so the service can start beside it. */
export function embeddedUrl(port: number, password: string): string {
  // `embedded=pglite` tells createDb to use unnamed statements (one shared session, see wireServer.ts).
  return `postgres://postgres:${password}@127.0.0.1:${port}/postgres?sslmode=disable&embedded=pglite`;
}

/**
 * Starts PGlite with PostGIS on `dataDir` (created when missing; `memory://` for a throwaway one, which
 * comes back empty if PGlite has to be restarted) and serves it on a loopback port with a random
 * password, so the ordinary postgres.js driver reaches it with `url` (docs/connections.md).
 * `folderReady`: `prepareDataFolder(dataDir)` already under way (local/start.mjs starts it before its build).
 */
export async function startEmbedded(
  dataDir = setting('DATA_DIR'),
  port?: number,
  password = newPassword(),
  folderReady?: Promise<void>,
): Promise<EmbeddedDatabase> {
  const dir = dataDir.startsWith('memory://') ? dataDir : resolve(dataDir);
  if (!dir.startsWith('memory://')) await (folderReady ?? prepareDataFolder(dir));
  const open = async () => {
    const db = await PGlite.create({
      dataDir: dir,
      extensions: { postgis: trimmedPostgis() },
      postgresqlconf: EMBEDDED_SETTINGS,
    });
    await db.exec('create extension if not exists postgis');
    return db;
  };
  const server = new PGliteWireServer(open, { password });
  const p = await server.listen(port ?? (await freePort()));
  return {
    url: embeddedUrl(p, password),
    dataDir: dir,
    stop: () => server.close(),
  };
}
