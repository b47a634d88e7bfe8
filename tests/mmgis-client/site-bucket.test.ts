// MMGIS's pages rendered from the templates in a bucket (MMGIS_CLIENT_BUCKET; docs/mission-site.md,
// "Deployed"): as deployed, where the page functions read the build the operator synced to the site bucket,
// here against the S3 stand-in of npm start (serverless-s3-local). The templates are the MMGIS 3.0.0
// build's own (MISSION_SITE_TEST_CLIENT, as in mission-site.test.ts; without one these tests are skipped,
// loudly). The service gets no MMGIS_CLIENT_DIR: the pages can only come from the bucket.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { bucketBuild, forgetBucketBuild } from '../../lib/web/mmgis/bucketBuild.ts';
import { BUCKET_KEYS } from '../../lib/web/mmgis/build.ts';
import { type RunningService, startService } from '../../local/devServer.ts';
import { adminCookie } from '../helpers.ts';

const CLIENT = process.env.MISSION_SITE_TEST_CLIENT ?? '';
const HAS_BUILD = CLIENT !== '' && existsSync(join(CLIENT, 'build', 'index.pug'));
if (!HAS_BUILD) console.warn('site-bucket: no MMGIS 3.0.0 build (MISSION_SITE_TEST_CLIENT): its tests are skipped.');

const BUCKET = 'mmgis-test-site';
const EMPTY = 'mmgis-test-site-empty';

describe.skipIf(!HAS_BUILD)("MMGIS's pages from the site bucket (npm start's S3 stand-in, AUTH=local)", () => {
  let service: RunningService;
  let s3: S3Client;
  const saved: Record<string, string | undefined> = {};

  beforeAll(async () => {
    service = await startService({
      databaseUrl: inject('databaseUrl'),
      env: { LOG_LEVEL: 'warn', AUTH: 'local', MMGIS_CLIENT_DIR: '', MMGIS_CLIENT_BUCKET: BUCKET },
    });
    s3 = new S3Client({
      region: 'us-east-1',
      endpoint: service.s3Endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
    for (const b of [BUCKET, EMPTY]) await s3.send(new CreateBucketCommand({ Bucket: b }));
    // As `aws s3 sync` leaves them (docs/deploying.md): each file at its path in the build.
    for (const key of BUCKET_KEYS)
      await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: readFileSync(join(CLIENT, key)) }));
    // The in-process reads below go to the same stand-in.
    saved.S3_ENDPOINT = process.env.S3_ENDPOINT;
    process.env.S3_ENDPOINT = service.s3Endpoint;
  }, 180_000);

  afterAll(async () => {
    if (saved.S3_ENDPOINT === undefined) delete process.env.S3_ENDPOINT;
    else process.env.S3_ENDPOINT = saved.S3_ENDPOINT;
    forgetBucketBuild();
    s3?.destroy();
    await service?.stop();
  });

  it("renders MMGIS's login page at / from the bucket, then the map page, and /configure-beta", async () => {
    const anon = await fetch(`${service.url}/`);
    expect(anon.status).toBe(200);
    expect(anon.headers.get('cache-control')).toBe('no-store');
    expect(await anon.text()).toContain('MMGIS / Login');
    const page = await (await fetch(`${service.url}/`, { headers: { cookie: await adminCookie() } })).text();
    expect(page).toContain(`mmgisglobal.user="${inject('admin').username}"`);
    expect(page).toContain('mmgisglobal.permission="111"');
    expect(page).toContain('mmgisglobal.version="3.0.0"');
    expect(await (await fetch(`${service.url}/configure-beta`)).text()).toContain('MMGIS / Configure');
    // The static folders are the front door's to serve from the bucket: the function has no folder.
    expect((await fetch(`${service.url}/public/login.js`)).status).toBe(404);
  });

  it('reads the pages once per instance; without them: undefined and one log line', async () => {
    forgetBucketBuild();
    const lines: string[] = [];
    const spy = vi.spyOn(console, 'log').mockImplementation((line: unknown) => {
      lines.push(String(line));
    });
    try {
      expect(await bucketBuild(EMPTY)).toBeUndefined();
      expect(await bucketBuild(EMPTY)).toBeUndefined();
      const warned = lines.filter((l) => l.includes('no MMGIS pages in MMGIS_CLIENT_BUCKET'));
      expect(warned).toHaveLength(1);
      expect(JSON.parse(warned[0])).toMatchObject({ level: 'warn', bucket: EMPTY });
      expect(Object.keys(JSON.parse(warned[0]).problems)).toEqual(BUCKET_KEYS.filter((k) => k.endsWith('.pug')));
    } finally {
      spy.mockRestore();
    }
    const build = await bucketBuild(BUCKET);
    expect(build?.version).toBe('3.0.0');
    expect(build?.dir).toBeUndefined();
    expect(await bucketBuild(BUCKET)).toBe(build);
    expect(build?.render('views/login.pug', { user: null, CLEARANCE_NUMBER: 'CL##-####' })).toContain(
      'MMGIS / Login',
    );
  });
});

describe.skipIf(HAS_BUILD)('without an MMGIS build', () => {
  it('is skipped (MISSION_SITE_TEST_CLIENT)', () => {});
});
