import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { admin, fcText, points, readAll, upload } from '../fixtures/uploads.ts';
import { adminToken, apiUrl, call, uniqueName } from '../helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'uploads-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Runs the CLI (bin/upload.mjs) against the test service. Not with spawnSync: blocking this process for
 * seconds let the server close an idle keep-alive connection unnoticed, and the next request on it
 * failed with "other side closed".
 */
function cli(args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((ok) => {
    execFile(
      process.execPath,
      ['bin/upload.mjs', ...args],
      { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 120_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        ok({ code, stdout, stderr });
      },
    );
  });
}

describe('oversized GeoJSON answers', () => {
  it('answers 303 to a presigned GET whose body equals the union of the inline pages', async () => {
    const name = uniqueName('upl_big');
    // About 8 MB of GeoJSON out: above the default 5 MiB inline limit.
    const up = await upload(fcText(points(40_000)), { name, startProp: 't', groupIdProp: 'g' });
    expect(up.final).toMatchObject({ state: 'succeeded', processed: 40_000 });

    const r = await call('GET', `/api/geodatasets/get?layer=${name}&type=geojson`);
    expect(r.status).toBe(303);
    const location = r.headers.get('location')!;
    expect(r.body).toMatchObject({ status: 'success', url: location });
    expect(r.body.bytes).toBeGreaterThan(5 * 1024 * 1024);
    expect(r.body.message).toMatch(/'limit' and 'after'/);
    expect(Date.parse(r.body.expiresAt) - Date.now()).toBeLessThanOrEqual(300_000);

    const big = await fetch(location);
    expect(big.status).toBe(200);
    const text = await big.text();
    expect(Buffer.byteLength(text)).toBe(r.body.bytes);
    const whole = JSON.parse(text);
    expect(whole.type).toBe('FeatureCollection');
    const pages = await readAll(name);
    expect(pages.length).toBe(40_000);
    expect(whole.features).toEqual(pages);

    // fetch follows the redirect by itself.
    const followed = await fetch(`${apiUrl()}/api/geodatasets/get?layer=${name}&type=geojson`);
    expect(followed.status).toBe(200);
    expect(((await followed.json()) as any).features.length).toBe(40_000);

    // A page under the limit stays inline.
    const page = await call('GET', `/api/geodatasets/get?layer=${name}&type=geojson&limit=5`);
    expect(page.status).toBe(200);
    expect(page.body.features.length).toBe(5);
  }, 180_000);
});

describe('the upload CLI (npm run upload)', () => {
  it('loads a file, prints progress on stderr and the final job on stdout', async () => {
    const name = uniqueName('upl_cli');
    const file = join(dir, 'cli.geojson');
    writeFileSync(file, fcText(points(3000)));
    const r = await cli([
      file,
      '--name',
      name,
      '--start-prop',
      't',
      '--group-id-prop',
      'g',
      '--url',
      apiUrl(),
      '--token',
      adminToken(),
    ]);
    expect(r.stderr).toMatch(/upload \[#{30}\] 100%/);
    expect(r.code).toBe(0);
    const job = JSON.parse(r.stdout);
    expect(job).toMatchObject({ state: 'succeeded', kind: 'upload', name, processed: 3000, total: 3000 });
    const e = await call('POST', '/api/geodatasets/entries', admin());
    const mine = (e.body.body.entries ?? e.body.body).find((x: any) => x.name === name);
    expect(mine).toMatchObject({
      filename: 'cli.geojson',
      num_features: 3000,
      start_prop: 't',
      group_id_prop: 'g',
    });

    // append with the token from the environment
    const more = join(dir, 'more.geojson');
    writeFileSync(more, fcText(points(10, 9000)));
    const a = await cli([more, '--name', name, '--action', 'append', '--url', apiUrl(), '--quiet'], {
      MMGIS_TOKEN: adminToken(),
    });
    expect(a.code).toBe(0);
    expect(a.stderr).toBe('');
    expect(JSON.parse(a.stdout).result).toEqual({ name, num_features: 3010, added: 10 });
  });

  it('exits 1 with the failed job for a malformed file and 2 on bad usage', async () => {
    const file = join(dir, 'bad.geojson');
    writeFileSync(file, '{"type":"FeatureCollection","features":[{"type":"Feature",');
    const r = await cli([
      file,
      '--name',
      uniqueName('upl_cli_bad'),
      '--url',
      apiUrl(),
      '--token',
      adminToken(),
    ]);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({
      state: 'failed',
      error: expect.stringMatching(/feature 0/),
    });
    expect((await cli([file, '--url', apiUrl()])).code).toBe(2);
    const noToken = await cli([file, '--name', 'x', '--url', apiUrl()], { MMGIS_TOKEN: '' });
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toMatch(/token/);
    const refused = await cli([file, '--name', 'bad name!', '--url', apiUrl(), '--token', adminToken()]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/refused \(400\).*'name'/);
  });
});
