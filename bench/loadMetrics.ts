/**
 * Measurements of the load bench (`bench/load.ts`): per-route latencies and statuses, and samplers of the
 * service's resident memory (summed over its process group) and of open database connections.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { type HttpInit, request } from './httpClient.ts';

export class RouteStats {
  readonly ms: number[] = [];
  readonly statuses = new Map<string, number>();
  constructor(readonly name: string) {}

  add(ms: number, status: number | string) {
    this.ms.push(ms);
    const k = String(status);
    this.statuses.set(k, (this.statuses.get(k) ?? 0) + 1);
  }

  /** Responses outside 2xx/304, by status (`ERR` for a failed request). */
  errors(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [k, n] of this.statuses) if (!/^2\d\d$|^304$/.test(k)) out[k] = n;
    return out;
  }

  count5xx(): number {
    let n = 0;
    for (const [k, c] of this.statuses) if (/^5\d\d$|^ERR$/.test(k)) n += c;
    return n;
  }

  percentile(p: number): number {
    if (this.ms.length === 0) return Number.NaN;
    const s = [...this.ms].sort((a, b) => a - b);
    return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
  }
}

/** Times one HTTP request (bench/httpClient.ts) into `stats`; resolves with the answer (null when the request itself failed). */
export async function timedRequest(
  stats: RouteStats,
  url: string,
  init?: HttpInit,
): Promise<{ status: number; body: Buffer } | null> {
  const t0 = performance.now();
  try {
    const res = await request(url, init);
    stats.add(performance.now() - t0, res.status);
    return { status: res.status, body: res.body };
  } catch {
    stats.add(performance.now() - t0, 'ERR');
    return null;
  }
}

export function table(routes: RouteStats[], seconds: number): string {
  const rows = [
    '| route | requests | req/s | p50 ms | p95 ms | p99 ms | errors by status |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const r of routes) {
    const errs = Object.entries(r.errors())
      .map(([k, n]) => `${k}: ${n}`)
      .join(', ');
    rows.push(
      `| ${r.name} | ${r.ms.length} | ${(r.ms.length / seconds).toFixed(1)} | ${r.percentile(50).toFixed(0)} | ${r.percentile(95).toFixed(0)} | ${r.percentile(99).toFixed(0)} | ${errs || 'none'} |`,
    );
  }
  return rows.join('\n');
}

/** Resident memory (bytes) of every process in process group `pgid` (serverless-offline and children). */
export function groupRss(pgid: number): number {
  let total = 0;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // Fields after the parenthesised command: state ppid pgrp ...
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(rest[2]) !== pgid) continue;
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${name}/status`, 'utf8'));
      if (m) total += Number(m[1]) * 1024;
    } catch {
      // the process ended meanwhile
    }
  }
  return total;
}

/** Every process's parent (pid → ppid), from /proc. */
function parents(): Map<number, number> {
  const out = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      out.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // the process ended meanwhile
    }
  }
  return out;
}

/** `root` and every process descended from it (whatever process group they run in). */
export function treePids(root: number): number[] {
  const ppid = parents();
  const found = [root];
  for (let i = 0; i < found.length; i++)
    for (const [pid, parent] of ppid) if (parent === found[i] && !found.includes(pid)) found.push(pid);
  return found;
}

/** RSS in bytes summed over `root` and its descendants: all that `npm start` (or a service process) holds. */
export function treeRss(root: number): number {
  let total = 0;
  for (const pid of treePids(root)) {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (m) total += Number(m[1]) * 1024;
    } catch {
      // the process ended meanwhile
    }
  }
  return total;
}

/** Established TCP connections accepted on loopback `port` (the embedded database's clients). */
export function acceptedConnections(port: number): number {
  let n = 0;
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 4) continue;
      const local = Number.parseInt(f[1].split(':')[1] ?? '', 16);
      if (local === port && f[3] === '01') n++;
    }
  }
  return n;
}

/** Calls `sample` every `everyMs` and keeps the peak; `stop()` resolves with it. */
export function peakSampler(sample: () => number | Promise<number>, everyMs = 250) {
  let peak = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      try {
        peak = Math.max(peak, await sample());
      } catch {
        // a failed sample is skipped
      }
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    peak: () => peak,
    async stop() {
      running = false;
      await loop;
      return peak;
    },
  };
}
