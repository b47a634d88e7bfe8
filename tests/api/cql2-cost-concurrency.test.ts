import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '#lib/db/index.ts';
import { recreateGeodataset } from '#lib/geodatasets/write/write.ts';
import { call, uniqueName } from '../helpers.ts';

/**
 * Ten costly CQL2 filters at once (docs/cql2.md, "Cost"), each just under the limit, leave the healthcheck
 * and a small read answering within 1 s: costly reads take turns in a per-process lane, holding no
 * connection while they wait. Before, ten such anonymous reads held every connection of the pool (the
 * healthcheck answered 503), and on the embedded database queued ahead of every other statement.
 * Run alone, after the other files (vitest.config.ts): it measures answer times.
 */

const db = getDb();
const big = uniqueName('cql2_lane');
const small = uniqueName('cql2_lane_small');
/** Points spread evenly over [-20, 20]² (deterministic). */
const points = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    type: 'Feature',
    geometry: { type: 'Point', coordinates: [((i * 37) % 400) / 10 - 20, ((i * 91) % 400) / 10 - 20] },
    properties: { i },
  }));
const N = 3000;

/** A closed ring of `n` vertices (the first repeated last) around (cx, cy), as WKT. */
function circle(n: number, r: number, cx = 0, cy = 0): string {
  const ring = Array.from({ length: n - 1 }, (_, i) => {
    const a = (2 * Math.PI * i) / (n - 1);
    return `${(cx + r * Math.cos(a)).toFixed(1)} ${(cy + r * Math.sin(a)).toFixed(1)}`;
  });
  return `POLYGON((${[...ring, ring[0]].join(', ')}))`;
}

/** A read with `filter` in a POST body (a URL of 20,000 characters passes no HTTP server's header limit). */
const get = (layer: string, filter?: string) =>
  filter
    ? call('POST', '/api/geodatasets/get', { body: { layer, filter } })
    : call('GET', `/api/geodatasets/get?${new URLSearchParams({ layer })}`);

beforeAll(async () => {
  await recreateGeodataset(db, { type: 'FeatureCollection', features: points(N) }, { name: big });
  await recreateGeodataset(db, { type: 'FeatureCollection', features: points(5) }, { name: small });
}, 120_000);

afterAll(async () => {
  for (const name of [big, small]) {
    const [row] = await db.sql`select table_name from geodatasets where name = ${name}`;
    if (row) {
      await db.sql.unsafe(`drop table if exists ${row.table_name as string}`);
      await db.sql`delete from geodatasets where name = ${name}`;
    }
  }
});

describe('ten costly filters at once', () => {
  // Just under the limit: 1,000 vertices, about 1,900 features in the polygon's bounding box.
  const filter = `S_TOUCHES(geometry, ${circle(1000, 15.9, 0, 0)})`;

  it('leave the healthcheck and a small read answering within 1 s', async () => {
    const alone = await get(big, filter);
    expect(alone.status, alone.text).toBe(200);
    // Warm: each function's first call loads its bundle, which is not what is measured here.
    expect((await call('GET', '/api/utils/healthcheck')).status).toBe(200);
    expect((await get(small)).status).toBe(200);
    const t0 = performance.now();
    const costly = Promise.all(Array.from({ length: 10 }, () => get(big, filter)));
    const probes: { what: string; ms: number; status: number }[] = [];
    let done = false;
    costly.finally(() => {
      done = true;
    });
    await new Promise((r) => setTimeout(r, 100));
    while (!done) {
      for (const [what, run] of [
        ['healthcheck', () => call('GET', '/api/utils/healthcheck')],
        ['small read', () => get(small)],
      ] as const) {
        const s = performance.now();
        const res = await run();
        probes.push({ what, ms: Math.round(performance.now() - s), status: res.status });
      }
    }
    const answers = await costly;
    const total = Math.round(performance.now() - t0);
    console.log(`ten costly filters: ${total} ms in all; probes: ${JSON.stringify(probes)}`);
    expect(answers.map((a) => a.status).every((s) => s === 200 || s === 503)).toBe(true);
    expect(answers.filter((a) => a.status === 200).length).toBeGreaterThan(0);
    expect(probes.length).toBeGreaterThan(0);
    for (const p of probes) {
      expect(p.status, p.what).toBe(200);
      expect(p.ms, `${p.what} took ${p.ms} ms`).toBeLessThan(1000);
    }
  }, 180_000);
});
