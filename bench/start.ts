/**
 * `npm run bench:start`: the first minute of `npm start` (local/start.mjs) on the embedded database, as a
 * new user meets it. Four starts, each `node local/start.mjs` in a process group of its own on port
 * BENCH_PORT (default 9200) and the three below it:
 *
 * - first start: no local build (dist/offline removed) and an empty data folder, as on a fresh clone after
 *   `npm ci`;
 * - restart: the same build and data;
 * - first start and restart again, beside one CPU-bound process (`node -e 'for(;;){}'`).
 *
 * For each: the seconds to the first answer of `GET /api/configure/missions`, the build's and database's
 * share (from the start-up screen's first line), the screen's lines before the first request log, the
 * peak RSS summed over every process `npm start` started, and the seconds SIGTERM took to end them all
 * (and how many were left after 5 s). The machine's load (`uptime`) is printed beside each start: other
 * work on a shared machine changes every figure here.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { treePids, treeRss } from './loadMetrics.ts';

const PORT = Number(process.env.BENCH_PORT) || 9200;
const ENTRY = 'local/start.mjs';

interface StartResult {
  label: string;
  load: string;
  firstAnswerS: number;
  firstLine: string;
  screenLines: number;
  peakRssMB: number;
  stopS: number;
  left: number;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function answers(url: string): Promise<boolean> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), 2000);
  try {
    const res = await fetch(url, { signal: abort.signal });
    await res.arrayBuffer();
    return res.status === 200;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

async function startOnce(label: string, dataDir: string): Promise<StartResult> {
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(PORT),
    DATA_DIR: join(dataDir, 'pglite'),
    S3_DIR: join(dataDir, 's3'),
  };
  delete env.DATABASE_URL;
  delete env.SLS_LOG_LEVEL;
  const t0 = performance.now();
  const child: ChildProcess = spawn(process.execPath, [ENTRY], { env, detached: true, stdio: 'pipe' });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString('utf8');
  });
  child.stderr?.on('data', (d: Buffer) => {
    out += d.toString('utf8');
  });
  const pid = child.pid as number;
  let peak = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, treeRss(pid));
  }, 250);
  let firstAnswerS = Number.NaN;
  const deadline = Date.now() + 600_000;
  while (Date.now() < deadline && child.exitCode === null) {
    if (await answers(`http://127.0.0.1:${PORT}/api/configure/missions`)) {
      firstAnswerS = (performance.now() - t0) / 1000;
      break;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  // The screen is printed once the service answered and the database was asked about administrators.
  const screenDone = Date.now() + 10_000;
  while (Date.now() < screenDone && !/Request logs follow/.test(out))
    await new Promise((r) => setTimeout(r, 100));
  // A few requests, so the peak includes a served function and a database session.
  for (let i = 0; i < 5; i++) await answers(`http://127.0.0.1:${PORT}/api/configure/missions`);
  peak = Math.max(peak, treeRss(pid));
  clearInterval(sampler);
  const lines = out.split('\n');
  const firstJson = lines.findIndex((l) => l.startsWith('{'));
  const screen = (firstJson < 0 ? lines : lines.slice(0, firstJson)).filter((l) => l.trim() !== '');
  const pids = treePids(pid);
  const s0 = performance.now();
  process.kill(pid, 'SIGTERM');
  const stopDeadline = Date.now() + 5000;
  while (Date.now() < stopDeadline && pids.some(alive)) await new Promise((r) => setTimeout(r, 50));
  const stopS = (performance.now() - s0) / 1000;
  const left = pids.filter(alive).length;
  for (const p of pids.filter(alive)) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      // gone
    }
  }
  if (Number.isNaN(firstAnswerS)) console.log(`${label}: no answer; its output:\n${out.slice(-3000)}`);
  return {
    label,
    load,
    firstAnswerS,
    firstLine: screen[0] ?? '',
    screenLines: screen.length,
    peakRssMB: peak / 1048576,
    stopS,
    left,
  };
}

function freshBuild() {
  rmSync('dist/offline', { recursive: true, force: true });
}

async function pair(hog: boolean): Promise<StartResult[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-start-'));
  let burner: ChildProcess | undefined;
  if (hog) burner = spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' });
  try {
    freshBuild();
    const suffix = hog ? ', beside a CPU hog' : '';
    const first = await startOnce(`first start (fresh build and data)${suffix}`, dataDir);
    const again = await startOnce(`restart (same build and data)${suffix}`, dataDir);
    return [first, again];
  } finally {
    burner?.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const results = [...(await pair(false)), ...(await pair(true))];
console.log(`\n# npm start's first minute (port ${PORT}, embedded database)\n`);
console.log(
  '| start | load (1, 5, 15 min) before | first answer (s) | screen lines | peak RSS of all its processes (MB) | SIGTERM to all ended (s) | left after 5 s |',
);
console.log('|---|---|---|---|---|---|---|');
for (const r of results)
  console.log(
    `| ${r.label} | ${r.load} | ${r.firstAnswerS.toFixed(1)} | ${r.screenLines} | ${r.peakRssMB.toFixed(0)} | ${r.stopS.toFixed(1)} | ${r.left} |`,
  );
console.log("\nWhere the time went (the screen's first line of each start):");
for (const r of results) console.log(`- ${r.label}: ${r.firstLine}`);
console.log(
  `\nload after: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
