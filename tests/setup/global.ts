import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import type { TestProject } from 'vitest/node';
import { hashPassword } from '../../lib/auth/passwords.ts';
import { dataApiEnv } from '../../local/dataApi/standIn.ts';
import { startService } from '../../local/devServer.ts';
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
    /** Statuses of the first_signup calls made while no admin existed (one user did), then once more. */
    firstSignupStatuses: number[];
    /**
     * Before any administrator existed: a user account made directly in the database (as an older version
     * let anyone sign up first), and the answer to an anonymous users/signup then (docs/auth.md).
     */
    preAdmin: { earlyUser: { username: string; password: string }; signup: { status: number; body: any } };
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
    // Webhook calls may reach the tests' receivers on loopback here only (tests/api/webhooks.test.ts).
    startService({ databaseUrl: fresh.url, env: { ...env, AUTH: 'none', WEBHOOK_ALLOW_PRIVATE: 'true' } }),
    startService({ databaseUrl: fresh.url, env: { ...env, AUTH: 'local' } }),
  ]);
  const admin = { username: 'admin', password: 'correct horse battery staple' };
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${open.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  // A deployment pre-empted by an account made before its admin: first_signup must still work, and an
  // anonymous signup is refused until an admin exists (tests/api/security-first-admin.test.ts).
  const earlyUser = { username: 'early_user', password: 'early user password' };
  const direct = postgres(fresh.url, { max: 1, onnotice: () => {} });
  try {
    await direct`insert into users (username, password_hash, role)
      values (${earlyUser.username}, ${await hashPassword(earlyUser.password)}, 'user')`;
  } finally {
    await direct.end();
  }
  const early = await post('/api/users/signup', { username: 'early_anonymous', password: 'long enough' });
  const preAdmin = { earlyUser, signup: { status: early.status, body: await early.json() } };
  // Racing first_signup calls while no admin exists: exactly one may create the (only) first admin.
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
    preAdmin,
    s3Endpoint: open.s3Endpoint,
    dataApiEnv: dataApi?.env ?? {},
    missionDataDir,
  };

  const stop = async () => {
    // The services' own log lines (a 500's `unhandled error` line names its cause): kept as test artifacts,
    // test-artifacts/service-<AUTH>-<embedded|server>.log.
    const dir = join(process.cwd(), 'test-artifacts');
    mkdirSync(dir, { recursive: true });
    const mode = fresh.embedded ? 'embedded' : 'server';
    for (const [name, svc] of [
      ['none', open],
      ['local', local],
    ] as const)
      writeFileSync(join(dir, `service-${name}-${mode}.log`), `${svc.logLines().join('\n')}\n`);
    await Promise.all([open.stop(), local.stop()]);
    await dataApi?.stop();
    await fresh.drop();
    rmSync(missionDataDir, { recursive: true, force: true });
  };
  return { provided, stop };
}
