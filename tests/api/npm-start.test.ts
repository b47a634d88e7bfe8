import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { treePids as tree } from '../../bench/loadMetrics.ts';
import { freePort } from '../../local/embedded/start.ts';

/**
 * `npm start` as a user runs it (`node local/start.mjs`, the local build `npm test` made), on the embedded
 * database in a data folder of this file's own: its screen, its stop on SIGTERM, and a `kill -9` of its
 * process group in the middle of writes (docs/connections.md, "npm start").
 */

const dataDir = mkdtempSync(join(tmpdir(), 'npm-start-test-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const ADMIN = { username: 'starter', password: 'starter-password' };

/** Whether `pid` runs (a zombie, ended but not yet reaped by its parent, does not). */
function running(pid: number): boolean {
  try {
    return !/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

interface Started {
  child: ChildProcess;
  base: string;
  output: () => string;
}

/** `node local/start.mjs` in a process group of its own, on the data folder `data` (default: this file's). */
async function spawnStart(data = join(dataDir, 'pglite')): Promise<Started> {
  // Three different ports: a port just released may be handed out again by the next freePort().
  const ports: number[] = [];
  while (ports.length < 3) {
    const p = await freePort();
    if (!ports.includes(p)) ports.push(p);
  }
  const [port, websocketPort, s3Port] = ports;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    WEBSOCKET_PORT: String(websocketPort),
    S3_PORT: String(s3Port),
    DATA_DIR: data,
    S3_DIR: join(dataDir, 's3'),
    AUTH: 'local',
  };
  for (const k of ['DATABASE_URL', 'SLS_LOG_LEVEL', 'DB_DRIVER', 'OFFLINE_LOCATION']) delete env[k];
  const child = spawn(process.execPath, ['local/start.mjs'], { env, detached: true, stdio: 'pipe' });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString('utf8');
  });
  child.stderr?.on('data', (d: Buffer) => {
    out += d.toString('utf8');
  });
  return { child, base: `http://127.0.0.1:${port}`, output: () => out };
}

/** Runs `node local/start.mjs` (spawnStart); resolves once its screen is complete. */
async function npmStart(): Promise<Started> {
  const started = await spawnStart();
  const { child, output } = started;
  const deadline = Date.now() + 170_000;
  while (!output().includes('Request logs follow')) {
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error(`npm start did not come up; its output:\n${output().slice(-4000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return started;
}

/** Waits until none of `pids` runs, at most `ms`; kills and returns those still running. */
async function leftAfter(pids: number[], ms: number): Promise<number[]> {
  const t0 = Date.now();
  while (Date.now() - t0 < ms && pids.some(running)) await new Promise((r) => setTimeout(r, 50));
  const left = pids.filter(running);
  for (const p of left) process.kill(p, 'SIGKILL');
  return left;
}

/** A process's command line. */
function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

async function post(base: string, path: string, body: unknown, cookie?: string) {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, text: await res.text(), cookie: res.headers.get('set-cookie')?.split(';')[0] };
}

async function loginCookie(base: string): Promise<string> {
  const r = await post(base, '/api/users/login', ADMIN);
  expect(r.status, r.text).toBe(200);
  return r.cookie as string;
}

const points = (n: number, props: (i: number) => Record<string, unknown>) => ({
  type: 'FeatureCollection',
  features: Array.from({ length: n }, (_, i) => ({
    type: 'Feature',
    geometry: { type: 'Point', coordinates: [(i % 360) - 180 + 0.5, ((i * 7) % 170) - 85] },
    properties: props(i),
  })),
});

async function features(base: string, cookie: string, layer: string) {
  const res = await fetch(`${base}/api/geodatasets/get?layer=${layer}&type=geojson`, { headers: { cookie } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { features: { properties: Record<string, number> }[] }).features;
}

describe('npm start (local/start.mjs) on the embedded database', () => {
  it('prints a screen of at most 15 lines in its order, and SIGTERM ends every process it started within 5 s', async () => {
    const s = await npmStart();
    const lines = s.output().split('\n');
    const screen = lines.slice(0, lines.findIndex((l) => l.includes('Request logs follow')) + 1);
    expect(screen.length).toBeLessThanOrEqual(15);
    const at = (re: RegExp) => screen.findIndex((l) => re.test(l));
    const order = [
      at(/API .*\/api\/ .*OpenAPI: .*\/api\/openapi\.json/),
      at(/Map viewer .*Configure: .*\/configure/),
      at(/WebSocket +ws:\/\//),
      at(/Database +embedded PGlite \+ PostGIS, data in .*pglite/),
      at(/postgres:\/\/postgres:.*@127\.0\.0\.1:\d+\/postgres/),
      at(/no administrator yet/),
    ];
    expect(
      order.every((i) => i >= 0),
      screen.join('\n'),
    ).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    // serverless-offline's route table only when asked for (`--routes`, SLS_LOG_LEVEL).
    expect(s.output()).not.toContain('/2015-03-31/functions/');
    // The first step the screen names works, and the next start has no such line.
    const signup = await post(s.base, '/api/users/first_signup', ADMIN);
    expect(signup.status, signup.text).toBe(201);

    const pids = tree(s.child.pid as number);
    expect(pids.length).toBeGreaterThanOrEqual(2); // start.mjs and serverless-offline
    process.kill(s.child.pid as number, 'SIGTERM');
    const left = await leftAfter(pids, 5_000);
    expect(left, `still running 5 s after SIGTERM: ${left.join(', ')}`).toEqual([]);
  }, 240_000);

  it("ends within 5 s, with its new data folder's initdb, on SIGTERM before the service is up, leaving no half-made folder", async () => {
    const data = join(dataDir, 'stopped-early');
    const s = await spawnStart(data);
    const parent = s.child.pid as number;
    let pids: number[] = [];
    const deadline = Date.now() + 60_000;
    while (!pids.some((p) => commandLine(p).includes('PGlite.create')) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      pids = tree(parent);
    }
    expect(pids.map(commandLine).join('\n'), 'the initdb process runs').toContain('PGlite.create');
    expect(s.output()).not.toContain('Request logs follow');
    const named = new Map(pids.map((p) => [p, commandLine(p)]));
    process.kill(parent, 'SIGTERM');
    const left = await leftAfter(pids, 5_000);
    expect(left, `still running 5 s after SIGTERM: ${left.map((p) => named.get(p)).join('; ')}`).toEqual([]);
    expect(readdirSync(data), 'the data folder is made whole or not at all').toEqual([]);
  }, 120_000);

  it('loses no committed write and leaves no partial one when its process group is killed (-9) mid-write', async () => {
    const s = await npmStart();
    expect(s.output()).not.toContain('no administrator yet');
    const cookie = await loginCookie(s.base);
    const BATCH = 300;
    const RECREATED = 500;
    const first = await post(
      s.base,
      '/api/geodatasets/recreate',
      { name: 'killed_appends', geojson: points(BATCH, (i) => ({ b: 0, i })) },
      cookie,
    );
    expect(first.status, first.text).toBe(200);
    const acked: number[] = [0];
    const recreatedAcked: number[] = [];
    let stop = false;
    const appends = (async () => {
      for (let b = 1; !stop; b++) {
        const r = await fetch(`${s.base}/api/geodatasets/append/killed_appends`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', cookie },
          body: JSON.stringify(points(BATCH, (i) => ({ b, i }))),
        }).catch(() => null);
        if (r?.status === 200) acked.push(b);
        else return;
      }
    })();
    const recreates = (async () => {
      for (let g = 1; !stop; g++) {
        const r = await post(
          s.base,
          '/api/geodatasets/recreate',
          { name: 'killed_recreates', geojson: points(RECREATED, (i) => ({ g, i })) },
          cookie,
        ).catch(() => null);
        if (r?.status === 200) recreatedAcked.push(g);
        else return;
      }
    })();
    // Until a few of each were answered, then in the middle of the next ones.
    const until = Date.now() + 120_000;
    while ((acked.length < 4 || recreatedAcked.length < 2) && Date.now() < until)
      await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 30 + Math.random() * 100));
    const pids = tree(s.child.pid as number);
    process.kill(-(s.child.pid as number), 'SIGKILL');
    stop = true;
    await Promise.all([appends, recreates]);
    // serverless-offline runs in a group of its own: it ends with its starter (local/exitWithParent.cjs).
    const left = await leftAfter(pids, 5_000);
    expect(left, `still running 5 s after kill -9: ${left.join(', ')}`).toEqual([]);
    expect(recreatedAcked.length).toBeGreaterThanOrEqual(2);

    const again = await npmStart();
    try {
      const c = await loginCookie(again.base);
      const byBatch = new Map<number, number>();
      for (const f of await features(again.base, c, 'killed_appends'))
        byBatch.set(f.properties.b, (byBatch.get(f.properties.b) ?? 0) + 1);
      for (const b of acked) expect(byBatch.get(b), `append batch ${b} (answered 200)`).toBe(BATCH);
      for (const [b, n] of byBatch) expect(n, `append batch ${b}: all or nothing`).toBe(BATCH);
      const recreated = await features(again.base, c, 'killed_recreates');
      expect(recreated).toHaveLength(RECREATED);
      const gens = new Set(recreated.map((f) => f.properties.g));
      expect(gens.size, 'one recreate, whole').toBe(1);
      expect([...gens][0]).toBeGreaterThanOrEqual(recreatedAcked[recreatedAcked.length - 1]);
    } finally {
      process.kill(-(again.child.pid as number), 'SIGTERM');
      const t0 = Date.now();
      while (Date.now() - t0 < 5_000 && again.child.exitCode === null)
        await new Promise((r) => setTimeout(r, 50));
    }
  }, 420_000);
});
