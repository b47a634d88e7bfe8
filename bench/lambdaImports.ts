// The import time of every packaged function, run as Lambda runs it (tests/fixtures/lambdaRun.ts): each
// zip unzipped alone, its handler imported by a fresh Node process with no project node_modules, then
// invoked once. Source maps on (`NODE_OPTIONS=--enable-source-maps`) and off, alternating per function.
// `npm run bench:lambda-imports` (RUNS=n: runs per function and mode, the fastest kept; default 2).
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { packagedFunctions, percentile, runPackaged, runRoot } from '../tests/fixtures/lambdaRun.ts';
import { DEFAULT_PACKAGE_ENV, packageService } from '../tests/fixtures/packageService.ts';

const runs = Number(process.env.RUNS ?? 2);
const out = mkdtempSync(join(tmpdir(), 'sls-imports-'));
const root = runRoot();
try {
  const template = JSON.parse(await packageService(out, [], DEFAULT_PACKAGE_ENV));
  const functions = packagedFunctions(template, out);
  const times: Record<'maps' | 'plain', Map<string, number>> = { maps: new Map(), plain: new Map() };
  for (const fn of functions) {
    for (let i = 0; i < runs; i++) {
      for (const mode of ['maps', 'plain'] as const) {
        const r = await runPackaged(fn, root, { sourceMaps: mode === 'maps' });
        if (r.importMs < 0) throw new Error(`${fn.id}: ${r.error}`);
        const prev = times[mode].get(fn.id);
        times[mode].set(fn.id, prev === undefined ? r.importMs : Math.min(prev, r.importMs));
      }
    }
  }
  console.log(
    `${functions.length} functions, fastest of ${runs} run(s) each; load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  console.log('| source maps | p50 ms | p95 ms | slowest ms | slowest function |');
  console.log('|---|---|---|---|---|');
  for (const mode of ['maps', 'plain'] as const) {
    const entries = [...times[mode]].sort((a, b) => b[1] - a[1]);
    const ms = entries.map(([, t]) => t);
    const label = mode === 'maps' ? 'on (`--enable-source-maps`)' : 'off';
    console.log(
      `| ${label} | ${percentile(ms, 50).toFixed(0)} | ${percentile(ms, 95).toFixed(0)} | ${entries[0][1].toFixed(0)} | ${entries[0][0]} |`,
    );
  }
  console.log('\nslowest five (maps on / off, ms):');
  for (const [id, t] of [...times.maps].sort((a, b) => b[1] - a[1]).slice(0, 5))
    console.log(`  ${id}: ${t.toFixed(0)} / ${(times.plain.get(id) ?? 0).toFixed(0)}`);
} finally {
  rmSync(out, { recursive: true, force: true });
  rmSync(root, { recursive: true, force: true });
}
