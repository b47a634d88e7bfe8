import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { writeTiledTiff } from '../fixtures/rasters.ts';
import { closeAll, connect, flushed, portOf, subscribed } from '../fixtures/wsClient.ts';
import {
  adminCookie,
  adminToken,
  apiUrl,
  apiUrlLocal,
  call,
  uniqueName,
  userWithSession,
} from '../helpers.ts';

// The attack: under AUTH=local a user listed for mission A reads mission B's rasters, tilesets and
// linked datasets by naming them, keeps B's live updates after an administrator took B (or the account)
// away, and a page of another site opens a socket with the user's session cookie.
// The rules (docs/auth.md, "Mission data"; docs/live-updates.md): a path `Missions/<mission>/…` and a
// dataset linked by missions are for those who may view that mission; pushes re-check the user's current
// row; `$connect` refuses a cross-site session cookie as HTTP refuses a cross-site state change.

afterAll(closeAll);

const A = uniqueName('mra');
const B = uniqueName('mrb');

beforeAll(() => {
  const root = inject('missionDataDir');
  for (const m of [A, B]) {
    mkdirSync(join(root, m, 'Layers', 'T', '2022-08-09T17_26_52Z-a'), { recursive: true });
    writeTiledTiff(join(root, m, 'r.tif'), {
      width: 16,
      height: 16,
      bands: 1,
      tile: 16,
      epsg: 4326,
      geographic: true,
      origin: [10, 50],
      pixel: [0.5, 0.5],
      value: (c, r) => r * 16 + c,
    });
  }
  writeTiledTiff(join(root, `${A}-root.tif`), {
    width: 16,
    height: 16,
    bands: 1,
    tile: 16,
    epsg: 4326,
    geographic: true,
    origin: [10, 50],
    pixel: [0.5, 0.5],
    value: () => 1,
  });
});

const bands = (path: string, auth: { cookie?: string; token?: string }, base = apiUrlLocal()) =>
  call('POST', '/api/utils/getbands', {
    base,
    ...auth,
    body: { path, x: 1, y: 1, xyorll: 'xy', bands: [1] },
  });
const profile = (path: string, auth: { cookie?: string; token?: string }, base = apiUrlLocal()) =>
  call('POST', '/api/utils/getprofile', {
    base,
    ...auth,
    body: { path, lat1: 45, lon1: 11, lat2: 46, lon2: 12, steps: 3 },
  });
const times = (mission: string, auth: { cookie?: string; token?: string }, base = apiUrlLocal()) => {
  const q = new URLSearchParams({
    path: `/Missions/${mission}/Layers/T/_time_/{z}/{x}/{y}.png`,
    starttime: '2022-01-01T00:00:00Z',
    endtime: '2023-01-01T00:00:00Z',
  });
  return call('GET', `/api/utils/queryTilesetTimes?${q}`, { base, ...auth });
};

describe('raster and tileset paths under AUTH=local', () => {
  it("answers a user the missions they may view and 403 for another mission's data, however the path is spelled", async () => {
    const user = await userWithSession('user', [A], apiUrlLocal());
    const me = { cookie: user.cookie };
    expect((await bands(`Missions/${A}/r.tif`, me)).status).toBe(200);
    expect((await profile(`${A}/r.tif`, me)).status).toBe(200);
    expect((await times(A, me)).body.body.times).toHaveLength(1);

    for (const path of [`Missions/${B}/r.tif`, `/Missions/${B}/r.tif`, `${B}/r.tif`, `./${B}//r.tif`]) {
      const res = await bands(path, me);
      expect(res.status, path).toBe(403);
      expect(res.body).toEqual({
        status: 'failure',
        error: true,
        message: `You may not view mission '${B}'.`,
      });
      expect((await profile(path, me)).status, path).toBe(403);
    }
    const t = await times(B, me);
    expect(t.status).toBe(403);
    expect(t.body.message).toContain(B);
    // `..` stays a 400, never a way round the mission check.
    expect((await bands(`${A}/../${B}/r.tif`, me)).status).toBe(400);
    // A file directly in the data root names no mission: administrators only.
    expect((await bands(`${A}-root.tif`, me)).status).toBe(403);
  });

  it('applies a change of the user missions at the next request; administrators and AUTH=none read all', async () => {
    const user = await userWithSession('user', [A], apiUrlLocal());
    expect((await bands(`${B}/r.tif`, { cookie: user.cookie })).status).toBe(403);
    const up = await call('POST', '/api/users/update', {
      cookie: await adminCookie(),
      body: { username: user.username, missions: [A, B] },
    });
    expect(up.status).toBe(200);
    expect((await bands(`${B}/r.tif`, { cookie: user.cookie })).status).toBe(200);

    expect((await bands(`${B}/r.tif`, { token: adminToken() })).status).toBe(200);
    expect((await bands(`${A}-root.tif`, { token: adminToken() })).status).toBe(200);
    expect((await times(B, { token: adminToken() })).status).toBe(200);
    expect((await bands(`${B}/r.tif`, {})).status).toBe(401);
    // AUTH=none is unchanged: anyone reads any mission's data.
    expect((await bands(`${B}/r.tif`, {}, apiUrl())).status).toBe(200);
    expect((await times(B, {}, apiUrl())).status).toBe(200);
  });
});

describe('datasets linked to a mission under AUTH=local', () => {
  const upload = (name: string) =>
    call('POST', `/api/datasets/upload?name=${name}`, {
      body: 'key,value\nk,secret\n',
      token: adminToken(),
      headers: { 'content-type': 'text/csv' },
    });
  const get = (dataset: string, cookie?: string, base = apiUrlLocal()) =>
    call('POST', '/api/datasets/get', {
      base,
      cookie,
      body: { queries: [{ dataset, column: 'key', search: 'k' }] },
    });

  it('refuses a dataset that only missions the user may not view link, keeps unlinked ones readable', async () => {
    const linked = uniqueName('dsl');
    const free = uniqueName('dsf');
    expect((await upload(linked)).status).toBeLessThan(300);
    expect((await upload(free)).status).toBeLessThan(300);
    const layer = { name: 'L', type: 'vector', url: 'x', variables: { datasetLinks: [{ dataset: linked }] } };
    const up = await call('POST', '/api/configure/upsert', {
      token: adminToken(),
      body: { mission: B, config: { msv: { view: [0, 0, 1] }, tools: [], layers: [layer] } },
    });
    expect(up.status).toBe(200);

    const outsider = await userWithSession('user', [A], apiUrlLocal());
    const refused = await get(linked, outsider.cookie);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain(linked);
    expect(refused.text).not.toContain('secret');
    expect((await get(free, outsider.cookie)).body.body[0].results).toEqual([{ key: 'k', value: 'secret' }]);

    const insider = await userWithSession('user', [B], apiUrlLocal());
    expect((await get(linked, insider.cookie)).body.body[0].results).toEqual([{ key: 'k', value: 'secret' }]);
    expect((await get(linked, await adminCookie())).status).toBe(200);
    expect((await get(linked, undefined, apiUrl())).status).toBe(200);
  });
});

describe('live updates follow the user row as it is now', () => {
  const upsert = (mission: string) =>
    call('POST', '/api/configure/upsert', {
      token: adminToken(),
      body: { mission, config: { msv: { view: [0, 0, 1] }, tools: [], layers: [] } },
    });
  const change = (mission: string, zoom: number) =>
    // Through the AUTH=local service: a push judges its receivers under the pushing function's mode.
    call('POST', '/api/configure/updateInitialView', {
      base: apiUrlLocal(),
      token: adminToken(),
      body: { mission, zoom, forceClientUpdate: true },
    });
  const port = () => portOf(apiUrlLocal());
  const of = (messages: any[], mission: string) =>
    messages.filter((m) => m.mission === mission || m.body?.mission === mission);

  it('a user taken off a mission, or removed, gets no more of its updates', async () => {
    const M = uniqueName('mrws');
    expect((await upsert(M)).status).toBe(200);
    const taken = await userWithSession('user', [M], apiUrlLocal());
    const removed = await userWithSession('user', [M], apiUrlLocal());
    const legacyTaken = await connect(port(), { cookie: taken.cookie });
    const legacyRemoved = await connect(port(), { cookie: removed.cookie });
    const viewerTaken = await connect(port(), { cookie: taken.cookie });
    const viewerRemoved = await connect(port(), { cookie: removed.cookie });
    const admin = await connect(port(), { authorization: `Bearer ${adminToken()}` });
    expect(await subscribed(legacyTaken, M)).toEqual({ type: 'subscribed', mission: M });
    expect(await subscribed(legacyRemoved, M)).toEqual({ type: 'subscribed', mission: M });
    expect(await subscribed(admin, M)).toEqual({ type: 'subscribed', mission: M });

    // Before: every connection gets the change.
    expect((await change(M, 3)).status).toBe(200);
    for (const c of [legacyTaken, legacyRemoved, admin])
      await c.next((m) => m.type === 'config' && m.mission === M);
    for (const c of [viewerTaken, viewerRemoved]) await c.next((m) => m.body?.mission === M);

    const cookie = await adminCookie();
    expect(
      (await call('POST', '/api/users/update', { cookie, body: { username: taken.username, missions: [] } }))
        .status,
    ).toBe(200);
    expect(
      (await call('POST', '/api/users/remove', { cookie, body: { username: removed.username } })).status,
    ).toBe(200);
    const counts = [legacyTaken, legacyRemoved, viewerTaken, viewerRemoved].map(
      (c) => of(c.messages, M).length,
    );

    expect((await change(M, 4)).status).toBe(200);
    await admin.next((m) => m.type === 'config' && m.version === 3);
    await flushed(legacyTaken, legacyRemoved, viewerTaken, viewerRemoved);
    expect(
      [legacyTaken, legacyRemoved, viewerTaken, viewerRemoved].map((c) => of(c.messages, M).length),
    ).toEqual(counts);
  });
});

describe('$connect checks Origin as HTTP does', () => {
  const port = () => portOf(apiUrlLocal());

  it("refuses a session cookie from another site's page (Origin, else Referer); accepts its own page and tokens", async () => {
    const user = await userWithSession('user', [A], apiUrlLocal());
    await expect(connect(port(), { cookie: user.cookie, origin: 'https://evil.example' })).rejects.toThrow(
      /403/,
    );
    await expect(
      connect(port(), { cookie: user.cookie, referer: 'https://evil.example/page.html' }),
    ).rejects.toThrow(/403/);
    const own = await connect(port(), { cookie: user.cookie, origin: `http://127.0.0.1:${port()}` });
    expect(own.ws.readyState).toBe(own.ws.OPEN);
    // A Bearer token is never sent by a browser on its own: no cross-site risk, as over HTTP.
    const token = await connect(port(), {
      authorization: `Bearer ${adminToken()}`,
      origin: 'https://evil.example',
    });
    expect(token.ws.readyState).toBe(token.ws.OPEN);
  });
});
