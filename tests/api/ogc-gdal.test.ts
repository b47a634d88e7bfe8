import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { getDb } from '#lib/db/index.ts';
import { recreateGeodataset } from '#lib/geodatasets/write/write.ts';
import { points } from '../fixtures/uploads.ts';
import { apiUrl, call, isEmbedded, uniqueName } from '../helpers.ts';

/**
 * GDAL's OGC API – Features client (the OAPIF driver of gdal-bin) against the service (docs/ogc.md):
 * listing, a full copy of 200,000 features to a GeoPackage, and attribute and spatial filters that it
 * sends to the server. Skipped where ogrinfo is not installed (CI installs gdal-bin).
 */
const hasGdal = spawnSync('ogrinfo', ['--version'], { encoding: 'utf8' }).status === 0;
const N = 200_000;
const big = uniqueName('ogc_gdal_big');
const dir = mkdtempSync(join(tmpdir(), 'ogc-gdal-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs a GDAL tool without blocking this process (the service's keep-alive connections stay served). */
function gdal(tool: string, args: string[]) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((ok) => {
    execFile(
      tool,
      args,
      {
        encoding: 'utf8',
        timeout: 300_000,
        maxBuffer: 64 * 1024 * 1024,
        env: { ...process.env, GDAL_HTTP_TIMEOUT: '120' },
      },
      (error, stdout, stderr) => ok({ code: error ? ((error.code as number) ?? null) : 0, stdout, stderr }),
    );
  });
}

const root = () => `OAPIF:${apiUrl()}/api/ogc`;

/** GDAL's error lines (for failure messages). */
const errors = (stderr: string) =>
  stderr
    .split('\n')
    .filter((l) => /ERROR|HTTP error|code [45]\d\d/i.test(l))
    .join('\n');

/** The items URLs GDAL fetched (its `--debug on` lines `HTTP: Fetch(url)`). */
const itemFetches = (stderr: string) =>
  [...stderr.matchAll(/HTTP: Fetch\(([^)]*\/items[^)]*)\)/g)].map((m) => decodeURIComponent(m[1]));

/** The value of `name (Type) = value` lines of ogrinfo's -sql answer. */
function sqlValue(stdout: string, name: string): string | undefined {
  return new RegExp(`^\\s*${name} \\([^)]*\\) = (.*)$`, 'm').exec(stdout)?.[1];
}

describe.skipIf(!hasGdal || isEmbedded() || process.env.DB_DRIVER === 'data-api')('GDAL OAPIF client', () => {
  beforeAll(async () => {
    // Written by the library, once for the whole file (the upload path has its own tests).
    await recreateGeodataset(
      getDb(),
      { type: 'FeatureCollection', features: points(N) },
      { name: big, startProp: 't' },
    );
  }, 300_000);

  it('ogrinfo -so lists every collection with its feature count and extent', async () => {
    const before = (await call('GET', '/api/ogc/collections')).body.collections.map((c: any) => c.id);
    const r = await gdal('ogrinfo', ['-so', '-al', '-ro', root()]);
    expect(r.code, errors(r.stderr)).toBe(0);
    // Read from the database: a request after the tool's run could meet a closed keep-alive connection.
    const sql = postgres(inject('databaseUrl'), { max: 1, onnotice: () => {} });
    const after = (await sql`select name from geodatasets`).map((row) => row.name as string);
    await sql.end();
    const listed = [...r.stdout.matchAll(/^Layer name: (.+)$/gm)].map((m) => m[1]);
    // Other test files add and remove datasets meanwhile: every one present throughout is listed.
    for (const id of before.filter((x: string) => after.includes(x))) expect(listed).toContain(id);
    const block = r.stdout.split(/^Layer name: /m).find((b) => b.startsWith(`${big}\n`))!;
    expect(block).toMatch(new RegExp(`^Feature Count: ${N}$`, 'm'));
    expect(block).toMatch(/^Extent: \(-180\.000000, -85\.000000\) - \(179\.900000, 84\.900000\)$/m);
    expect(block).toMatch(/^\s*TEMPORAL_INTERVAL_MIN=2024-01-01T00:00:00\.000Z$/m);
  }, 300_000);

  it('ogr2ogr copies all 200,000 features with their properties to a GeoPackage', async () => {
    const out = join(dir, 'copy.gpkg');
    const copy = await gdal('ogr2ogr', ['-f', 'GPKG', out, root(), big, '-oo', 'PAGE_SIZE=10000']);
    expect(copy.code, copy.stderr).toBe(0);
    const sums = await gdal('ogrinfo', [
      '-ro',
      out,
      '-sql',
      `select count(*) as c, sum(n) as sn, count(distinct n) as dn, sum(f) as sf, count(distinct g) as dg, sum(length(s)) as ls from "${big}"`,
    ]);
    expect(sums.code, sums.stderr).toBe(0);
    const expected = { sn: 0, sf: 0, ls: 0 };
    for (const p of points(N)) {
      expected.sn += p.properties.n as number;
      expected.sf += p.properties.f as number;
      expected.ls += [...(p.properties.s as string)].length;
    }
    expect(Number(sqlValue(sums.stdout, 'c'))).toBe(N);
    expect(Number(sqlValue(sums.stdout, 'dn'))).toBe(N);
    expect(Number(sqlValue(sums.stdout, 'sn'))).toBe(expected.sn);
    expect(Number(sqlValue(sums.stdout, 'sf'))).toBeCloseTo(expected.sf, 3);
    expect(Number(sqlValue(sums.stdout, 'dg'))).toBe(7);
    expect(Number(sqlValue(sums.stdout, 'ls'))).toBe(expected.ls);
    // One feature whole: its non-ASCII string, its time and its point.
    const one = await gdal('ogrinfo', [
      '-ro',
      out,
      '-sql',
      `select s, t, ST_X(geom) as x, ST_Y(geom) as y from "${big}" where n = 123456`,
    ]);
    const p = points(1, 123456)[0];
    expect(sqlValue(one.stdout, 's')).toBe(p.properties.s);
    const t = (p.properties.t as string).slice(0, 19).replace(/-/g, '/').replace('T', ' ');
    expect(sqlValue(one.stdout, 't')?.startsWith(t)).toBe(true);
    expect(Number(sqlValue(one.stdout, 'x'))).toBeCloseTo(p.geometry.coordinates[0], 6);
    expect(Number(sqlValue(one.stdout, 'y'))).toBeCloseTo(p.geometry.coordinates[1], 6);
  }, 300_000);

  it('sends -where on a queryable to the server', async () => {
    // The server's own count first (a request after the tool's run could meet a keep-alive connection
    // the server closed while this process waited).
    const expected = points(N).filter((p) => p.properties.g === 'g3').length;
    const page = await call('GET', `/api/ogc/collections/${big}/items?g=g3&limit=1`);
    expect(page.body.numberMatched).toBe(expected);
    const r = await gdal('ogrinfo', [
      '--debug',
      'on',
      '-ro',
      '-so',
      root(),
      big,
      '-oo',
      'PAGE_SIZE=10000',
      '-where',
      "g = 'g3'",
    ]);
    expect(r.code, errors(r.stderr)).toBe(0);
    expect(r.stdout, errors(r.stderr)).toMatch(new RegExp(`^Feature Count: ${expected}$`, 'm'));
    const filtered = itemFetches(r.stderr).filter((u) => u.includes('g=g3'));
    // The server filtered: the matching features came in ceil(expected / 10000) pages, not the 20 of the layer.
    expect(filtered.length).toBeGreaterThan(0);
    expect(filtered.length).toBeLessThanOrEqual(Math.ceil(expected / 10_000) + 1);
  }, 300_000);

  it('sends -spat to the server as bbox', async () => {
    const expected = points(N).filter((p) => {
      const [x, y] = p.geometry.coordinates;
      return x >= 0 && x <= 20 && y >= 0 && y <= 10;
    }).length;
    expect(expected).toBeGreaterThan(100);
    const page = await call('GET', `/api/ogc/collections/${big}/items?bbox=0,0,20,10&limit=1`);
    expect(page.body.numberMatched).toBe(expected);
    const r = await gdal('ogrinfo', [
      '--debug',
      'on',
      '-ro',
      '-so',
      root(),
      big,
      '-oo',
      'PAGE_SIZE=10000',
      '-spat',
      '0',
      '0',
      '20',
      '10',
    ]);
    expect(r.code, errors(r.stderr)).toBe(0);
    expect(r.stdout, errors(r.stderr)).toMatch(new RegExp(`^Feature Count: ${expected}$`, 'm'));
    const fetched = itemFetches(r.stderr).filter((u) => u.includes('bbox=0,0,20,10'));
    expect(fetched.length).toBeGreaterThan(0);
    // One page holds them all: GDAL did not read the whole layer to filter it itself.
    expect(
      itemFetches(r.stderr).filter((u) => !u.includes('bbox=') && /limit=10000/.test(u)).length,
    ).toBeLessThanOrEqual(1);
  }, 300_000);
});
