import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { dataApiEnv } from '../../scripts/dataApiStandIn.ts';
import { startService } from '../../scripts/devServer.ts';
import { createFreshDatabase } from './freshDatabase.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    embedded: boolean;
    /** The service under AUTH=none and under AUTH=local, both on the test database. */
    apiUrl: string;
    apiUrlLocal: string;
    lambdaPort: number;
    websocketPort: number;
    /** The WebSocket port of the AUTH=local service. */
    websocketPortLocal: number;
    admin: { username: string; password: string; token: string };
    /** The S3 stand-in of the AUTH=none service (uploads tests). */
    s3Endpoint: string;
    /** Statuses of the first_signup calls made while no user existed, then once more. */
    firstSignupStatuses: number[];
    /** With DB_DRIVER=data-api: the test process's own Data API stand-in environment (else empty). */
    dataApiEnv: Record<string, string>;
    /** The mission data root (MISSION_DATA_DIR) both services read rasters and tilesets from. */
    missionDataDir: string;
  }
}

/**
 * One fresh database per run: with `DATABASE_URL` set, a uniquely named database on that PostGIS server
 * (dropped afterwards); without it, a throwaway embedded PGlite + PostGIS. Two services start on it.
 */
export default async function setup(project: TestProject) {
  // The suite and the concurrency project share one set of services (global setup runs per project, in
  // one process): the first starts them, the last teardown stops them.
  const shared = globalThis as { mmgisTestServices?: { users: number; ready: ReturnType<typeof start> } };
  shared.mmgisTestServices ??= { users: 0, ready: start() };
  const services = shared.mmgisTestServices;
  services.users++;
  const { provided, stop } = await services.ready;
  for (const [key, value] of Object.entries(provided)) project.provide(key as any, value as never);
  return async () => {
    if (--services.users > 0) return;
    shared.mmgisTestServices = undefined;
    await stop();
  };
}

async function start() {
  const fresh = await createFreshDatabase(process.env.DATABASE_URL);
  const missionDataDir = mkdtempSync(join(tmpdir(), 'mmgis-missions-'));
  // Third database mode (DB_DRIVER=data-api): services and test code reach the database through stand-ins.
  const dataApi = await dataApiEnv(process.env, fresh.url);
  const env = {
    LOG_LEVEL: 'warn',
    SESSION_TTL_MS: '',
    STATEMENT_TIMEOUT_MS: '30000',
    MISSION_DATA_DIR: missionDataDir,
    // The one origin allowed to send credentials (tests/api/cors.test.ts).
    CORS_ORIGINS: 'https://app.allowed.test',
  };
  const [open, local] = await Promise.all([
    startService({ databaseUrl: fresh.url, env: { ...env, AUTH: 'none' } }),
    startService({ databaseUrl: fresh.url, env: { ...env, AUTH: 'local' } }),
  ]);
  const admin = { username: 'admin', password: 'correct horse battery staple' };
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${open.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  // Racing first_signup calls on the empty database: exactly one may create the (only) first admin.
  const racers = Array.from({ length: 6 }, (_, i) => ({ ...admin, username: i ? `admin${i}` : 'admin' }));
  const firstSignupStatuses = await Promise.all(
    racers.map(async (r) => (await post('/api/users/first_signup', r)).status),
  );
  admin.username = racers[Math.max(0, firstSignupStatuses.indexOf(201))].username;
  firstSignupStatuses.push(
    (await post('/api/users/first_signup', { username: 'x', password: 'long enough' })).status,
  );
  const login = await post('/api/users/login', admin);
  const cookie = login.headers.get('set-cookie')?.split(';')[0] ?? '';
  const gen = (await (
    await post('/api/longtermtoken/generate', { name: 'tests' }, { cookie })
  ).json()) as any;

  const provided = {
    databaseUrl: fresh.url,
    embedded: fresh.embedded,
    apiUrl: open.url,
    apiUrlLocal: local.url,
    lambdaPort: open.lambdaPort,
    websocketPort: open.websocketPort,
    websocketPortLocal: local.websocketPort,
    admin: { ...admin, token: gen?.body?.token ?? '' },
    firstSignupStatuses,
    s3Endpoint: open.s3Endpoint,
    dataApiEnv: dataApi?.env ?? {},
    missionDataDir,
  };

  const stop = async () => {
    await Promise.all([open.stop(), local.stop()]);
    await dataApi?.stop();
    await fresh.drop();
    rmSync(missionDataDir, { recursive: true, force: true });
  };
  return { provided, stop };
}
