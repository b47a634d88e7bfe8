/** The services `bench/load.ts` runs against: on a fresh server database, or on a throwaway embedded one. */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { parseDatabaseUrl } from '../lib/db/index.ts';
import { acceptedConnections } from './loadMetrics.ts';
import { type ServiceProcess, startServiceProcess } from './serviceProcess.ts';

export interface Target {
  label: string;
  /** The service's process (as `npm start`'s: the embedded database inside it) and its serverless-offline child. */
  svc: ServiceProcess;
  /** Open connections of the service to its database right now. */
  connections: () => Promise<number>;
  /** Whether the service still runs a statement (server) or is within 10 s of the mix (embedded). */
  active: () => Promise<boolean>;
  cleanup: () => Promise<void>;
}

export async function serverTarget(serverUrl: string): Promise<Target> {
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  const name = `mmgis_bench_load_${Date.now()}_${randomBytes(2).toString('hex')}`;
  await admin.unsafe(`create database ${name}`);
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  const svc = await startServiceProcess({
    databaseUrl: u.toString(),
    env: { AUTH: 'none', LOG_LEVEL: 'warn' },
  });
  return {
    label: 'PostGIS server',
    svc,
    connections: async () => {
      const [r] = await admin`select count(*)::int as n from pg_stat_activity where datname = ${name}`;
      return r.n;
    },
    active: async () => {
      const [r] = await admin`select count(*)::int as n from pg_stat_activity
        where datname = ${name} and state = 'active'`;
      return r.n > 0;
    },
    cleanup: async () => {
      await svc.stop();
      await admin.unsafe(`drop database if exists ${name} with (force)`).catch(() => {});
      await admin.end();
    },
  };
}

export async function embeddedTarget(): Promise<Target> {
  // On disk, as `npm start` keeps it (`.data/pglite`): a `memory://` database would hold its files in the
  // service's own memory and count them in its RSS.
  const dataDir = mkdtempSync(join(tmpdir(), 'mmgis-load-pglite-'));
  const svc = await startServiceProcess({ dataDir, env: { AUTH: 'none', LOG_LEVEL: 'warn' } });
  const port = Number(new URL(svc.databaseUrl).port);
  return {
    label: 'embedded PGlite',
    svc,
    connections: async () => acceptedConnections(port),
    // One session serves every client: a trivial query answers quickly only once the backlog is done.
    active: async () => {
      const probe = postgres(parseDatabaseUrl(svc.databaseUrl).url, { max: 1, prepare: false });
      const t0 = performance.now();
      await probe`select 1`;
      await probe.end();
      return performance.now() - t0 > 500;
    },
    cleanup: async () => {
      await svc.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

/** The first user (an administrator), logged in, and a long-term token for the writes. */
export async function adminToken(base: string): Promise<string> {
  const admin = { username: 'loadbench', password: 'load bench password' };
  await post(`${base}/api/users/first_signup`, admin);
  const login = await post(`${base}/api/users/login`, admin);
  const cookie = login.headers.get('set-cookie')?.split(';')[0] ?? '';
  const gen = (await (
    await post(`${base}/api/longtermtoken/generate`, { name: 'load' }, { cookie })
  ).json()) as {
    body?: { token?: string };
  };
  if (!gen.body?.token) throw new Error('could not get an admin token');
  return gen.body.token;
}
