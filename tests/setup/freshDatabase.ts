import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { prepareDatabase } from '../../local/devServer.ts';
import { startEmbedded } from '../../local/embedded/start.ts';

export interface FreshDatabase {
  url: string;
  embedded: boolean;
  drop(): Promise<void>;
}

/** A new, migrated database: on the server named by `serverUrl`, or an embedded in-memory PGlite. */
export async function createFreshDatabase(serverUrl?: string): Promise<FreshDatabase> {
  if (!serverUrl) {
    const db = await startEmbedded('memory://');
    await prepareDatabase(db.url, undefined);
    return { url: db.url, embedded: true, drop: () => db.stop() };
  }
  const name = `mmgis_test_${Date.now()}_${randomBytes(3).toString('hex')}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  const url = u.toString();
  await prepareDatabase(url, undefined);
  return {
    url,
    embedded: false,
    async drop() {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}
