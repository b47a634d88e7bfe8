import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { WebSocket } from 'ws';
import { getDb } from '#lib/db/index.ts';
import { type Client, closeAll, connect, flushed, portOf, subscribed } from '../fixtures/wsClient.ts';
import { adminToken, apiUrl, apiUrlLocal, call, uniqueName, userWithSession } from '../helpers.ts';

afterAll(closeAll);

const post = (path: string, body: unknown) =>
  call('POST', `/api/configure/${path}`, { body, token: adminToken() });
const config = () => ({ msv: { view: [0, 0, 1] }, tools: [], layers: [] });
const configEvents = (c: Client) => c.messages.filter((m) => m.type === 'config');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('WebSocket subscriptions, the older protocol (AUTH=none)', () => {
  const port = () => portOf(apiUrl());

  it('pushes exactly one event for addLayer with forceClientUpdate, none without', async () => {
    const mission = uniqueName('ws');
    const other = uniqueName('ws');
    expect((await post('upsert', { mission, config: config() })).status).toBe(200);
    expect((await post('upsert', { mission: other, config: config() })).status).toBe(200);
    const client = await connect(port());
    const bystander = await connect(port());
    expect(await subscribed(client, mission)).toEqual({ type: 'subscribed', mission });
    expect(await subscribed(bystander, other)).toEqual({ type: 'subscribed', mission: other });

    const quiet = await post('addLayer', { mission, layer: { name: 'Q', type: 'tile', url: 'q' } });
    expect(quiet.status).toBe(200);
    const loud = await post('addLayer', {
      mission,
      layer: { name: 'L', type: 'tile', url: 'l' },
      forceClientUpdate: true,
    });
    expect(loud.status).toBe(200);
    const event = await client.next((m) => m.type === 'config');
    expect(event).toEqual({
      type: 'config',
      action: 'addLayer',
      mission,
      version: 3,
      layerUUIDs: [loud.body.newlyAddedUUIDs[0].uuid],
      forceClientUpdate: true,
    });
    await flushed(client, bystander);
    expect(configEvents(client)).toHaveLength(1);
    expect(configEvents(bystander)).toHaveLength(0);
  });

  it('pushes upsert, updateLayer, removeLayer and updateInitialView with their payloads', async () => {
    const mission = uniqueName('ws');
    await post('upsert', { mission, config: config() });
    const client = await connect(port());
    await subscribed(client, mission);
    const added = await post('addLayer', {
      mission,
      layer: { name: 'H', type: 'header', sublayers: [{ name: 'S', type: 'tile', url: 's' }] },
    });
    const [h, s] = added.body.newlyAddedUUIDs.map((n: any) => n.uuid);
    await post('upsert', { mission, version: 2, forceClientUpdate: true }); // v3
    await post('updateLayer', { mission, layerUUID: h, layer: { name: 'H2' }, forceClientUpdate: true }); // v4
    await post('updateInitialView', { mission, zoom: 4, forceClientUpdate: true }); // v5
    await post('updateInitialView', { mission, zoom: 4, forceClientUpdate: true }); // no change: no event
    await post('removeLayer', { mission, layerUUID: h, forceClientUpdate: true }); // v6
    await client.next((m) => m.action === 'removeLayer');
    await flushed(client);
    expect(configEvents(client)).toEqual([
      { type: 'config', action: 'upsert', mission, version: 3, forceClientUpdate: true },
      {
        type: 'config',
        action: 'updateLayer',
        mission,
        version: 4,
        layerUUIDs: [h],
        forceClientUpdate: true,
      },
      { type: 'config', action: 'updateInitialView', mission, version: 5, forceClientUpdate: true },
      {
        type: 'config',
        action: 'removeLayer',
        mission,
        version: 6,
        layerUUIDs: [h, s],
        forceClientUpdate: true,
      },
    ]);
  });

  it('stops pushing after unsubscribe and after disconnect (rows removed)', async () => {
    const mission = uniqueName('ws');
    await post('upsert', { mission, config: config() });
    const client = await connect(port());
    await subscribed(client, mission);
    client.send({ action: 'unsubscribe', mission });
    await client.next((m) => m.type === 'unsubscribed');
    await post('updateInitialView', { mission, zoom: 9, forceClientUpdate: true });
    await flushed(client);
    expect(configEvents(client)).toHaveLength(0);

    const sql = getDb().sql;
    const other = await connect(port());
    await subscribed(other, mission);
    const before = await sql`select count(*)::int as n from ws_subscriptions where mission = ${mission}`;
    expect(before[0].n).toBe(1);
    await other.close();
    const deadline = Date.now() + 30_000;
    let n = 1;
    while (Date.now() < deadline && n > 0) {
      await sleep(100);
      n = (await sql`select count(*)::int as n from ws_subscriptions where mission = ${mission}`)[0].n;
    }
    expect(n).toBe(0);
  });

  it('deletes gone connections (410) when pushing', async () => {
    const mission = uniqueName('ws');
    await post('upsert', { mission, config: config() });
    const sql = getDb().sql;
    const ghost = `ghost${randomBytes(6).toString('hex')}`;
    const management = `http://127.0.0.1:${inject('websocketPort')}`;
    // Recorded a minute ago: a connection whose `$connect` is still running is not dropped. Subscribed in
    // the same statement: a connection without subscriptions gets every change of other test files, and
    // their push would find it gone (and delete it) before it subscribed.
    await sql`
      with c as (
        insert into ws_connections (connection_id, endpoint, connected_at)
        values (${ghost}, ${management}, now() - interval '1 minute')
        returning connection_id
      )
      insert into ws_subscriptions (connection_id, mission) select connection_id, ${mission}::text from c`;
    const client = await connect(port());
    await subscribed(client, mission);
    const res = await post('updateInitialView', { mission, latitude: 5, forceClientUpdate: true });
    expect(res.status).toBe(200);
    await client.next((m) => m.type === 'config');
    const rows = await sql`select 1 from ws_connections where connection_id = ${ghost}`;
    expect(rows).toHaveLength(0);
  });

  it.each([
    ['text that is not JSON', 'hello', 'JSON'],
    ['an unknown action', { action: 'dance' }, 'action'],
    ['an invalid mission name', { action: 'subscribe', mission: 'bad/name' }, 'mission'],
  ])('answers %s with an error message and keeps the connection', async (_label, msg, text) => {
    const client = await connect(port());
    client.send(msg);
    const err = await client.next((m) => m.type === 'error');
    expect(err.message).toContain(text);
    client.send({ action: 'ping' });
    expect(await client.next((m) => m.type === 'pong')).toEqual({ type: 'pong' });
  });
});

describe('WebSocket subscriptions under AUTH=local', () => {
  const port = () => portOf(apiUrlLocal());

  it('subscribes only to missions the connection may view (cookie or token on connect)', async () => {
    const mine = uniqueName('wsl');
    const theirs = uniqueName('wsl');
    await post('upsert', { mission: mine, config: config() });
    await post('upsert', { mission: theirs, config: config() });

    // An anonymous connection would receive nothing: it is refused at $connect (docs/live-updates.md).
    await expect(connect(port())).rejects.toThrow(/401/);

    const user = await userWithSession('user', [mine], apiUrlLocal());
    const viewer = await connect(port(), { cookie: user.cookie });
    expect(await subscribed(viewer, mine)).toEqual({ type: 'subscribed', mission: mine });
    const refused = await subscribed(viewer, theirs);
    expect(refused.type).toBe('error');
    expect(refused.message).toContain(theirs);

    const admin = await connect(port(), { authorization: `Bearer ${adminToken()}` });
    expect(await subscribed(admin, theirs)).toEqual({ type: 'subscribed', mission: theirs });

    await post('updateInitialView', { mission: mine, zoom: 2, forceClientUpdate: true });
    await post('updateInitialView', { mission: theirs, zoom: 2, forceClientUpdate: true });
    expect(await viewer.next((m) => m.type === 'config')).toMatchObject({ mission: mine, version: 2 });
    expect(await admin.next((m) => m.type === 'config')).toMatchObject({ mission: theirs, version: 2 });
    await flushed(viewer);
    expect(configEvents(viewer)).toHaveLength(1);
  });

  it('refuses a connection with an invalid Bearer token', async () => {
    await expect(connect(port(), { authorization: 'Bearer not-a-token' })).rejects.toThrow(/401|refused/);
  });
});

/** MMGIS client messages (docs/live-updates.md) of one mission: every test works on missions of its own. */
const clientMessages = (c: Client, mission: string) =>
  c.messages.filter((m) => m.info && m.body?.mission === mission);
const nextOf = (c: Client, mission: string, type: string) =>
  c.next((m) => m.info?.type === type && m.body?.mission === mission);

describe('Live updates the MMGIS client reads (AUTH=none)', () => {
  const port = () => portOf(apiUrl());

  it('sends addLayer, updateLayer, removeLayer and upsert messages without any subscribe step', async () => {
    const mission = uniqueName('live');
    expect((await post('upsert', { mission, config: config() })).status).toBe(200);
    const page = await connect(port());
    const added = await post('addLayer', { mission, layer: { name: 'Rovers', type: 'tile', url: 'r' } });
    const uuid = added.body.newlyAddedUUIDs[0].uuid;
    const addMsg = await nextOf(page, mission, 'addLayer');
    expect(addMsg.info).toEqual({ type: 'addLayer', layerName: uuid, route: 'config', mission });
    expect(addMsg.forceClientUpdate).toBe(false);
    expect(addMsg.body).toMatchObject({ mission, version: 2 });
    expect(addMsg.body.config.layers.map((l: any) => l.uuid)).toEqual([uuid]);

    await post('updateLayer', { mission, layerUUID: uuid, layer: { name: 'R2' }, forceClientUpdate: true });
    const upd = await nextOf(page, mission, 'updateLayer');
    expect(upd.info).toEqual({ type: 'updateLayer', layerName: uuid, route: 'config', mission });
    expect(upd.forceClientUpdate).toBe(true);

    // An array of layers: layerName is the array of their uuids.
    const two = await post('addLayer', {
      mission,
      layer: [
        { name: 'A', type: 'tile', url: 'a' },
        { name: 'B', type: 'header', sublayers: [{ name: 'C', type: 'tile', url: 'c' }] },
      ],
    });
    const [a, b] = two.body.newlyAddedUUIDs.filter((n: any) => n.name !== 'C').map((n: any) => n.uuid);
    const addTwo = await page.next(
      (m) => m.info?.type === 'addLayer' && m.body?.mission === mission && Array.isArray(m.info.layerName),
    );
    expect(addTwo.info.layerName).toEqual([a, b]);

    await post('removeLayer', { mission, layerUUID: a, forceClientUpdate: true });
    const rem = await nextOf(page, mission, 'removeLayer');
    expect(rem.info.layerName).toEqual([a]);

    // The configure app's save: an upsert carrying its page id, echoed so other configure pages lock.
    await post('upsert', { mission, config: rem.body.config, id: 4242 });
    const up = await nextOf(page, mission, 'upsert');
    expect(up.info).toEqual({ type: 'upsert', route: 'config', id: 4242, mission });
    expect(up.body.config).toBeTypeOf('object');

    // No stored change, no message: updateInitialView with the same view twice.
    await post('updateInitialView', { mission, zoom: 3 });
    await post('updateInitialView', { mission, zoom: 3 });
    await flushed(page);
    expect(clientMessages(page, mission).map((m) => m.info.type)).toEqual([
      'addLayer',
      'updateLayer',
      'addLayer',
      'removeLayer',
      'upsert',
      'upsert',
    ]);
    // Nothing of the older protocol for a connection that never subscribed.
    expect(configEvents(page)).toHaveLength(0);
  });

  it('a subscribed connection keeps the older events and gets none of the client messages', async () => {
    const mission = uniqueName('live');
    await post('upsert', { mission, config: config() });
    const legacy = await connect(port());
    await subscribed(legacy, mission);
    await post('updateInitialView', { mission, zoom: 6, forceClientUpdate: true });
    await legacy.next((m) => m.type === 'config' && m.mission === mission);
    await flushed(legacy);
    // Of this mission's change (other test files' changes can reach the connection before it subscribed,
    // while it was still a client connection).
    expect(legacy.messages.filter((m) => m.info?.mission === mission)).toHaveLength(0);
  });

  it('tells open maps to reload the layers of a geodataset that was rewritten', async () => {
    const mission = uniqueName('live');
    const dataset = uniqueName('liveds').toLowerCase();
    const point = (n: number) => ({
      type: 'FeatureCollection',
      features: [{ type: 'Feature', properties: { n }, geometry: { type: 'Point', coordinates: [n, 0] } }],
    });
    const write = (path: string, body: unknown) =>
      call('POST', `/api/geodatasets/${path}`, { body, token: adminToken() });
    expect((await write('recreate', { name: dataset, geojson: point(1) })).status).toBe(200);
    const layers = [
      {
        name: 'H',
        type: 'header',
        sublayers: [{ name: 'Points', type: 'vector', url: `geodatasets:${dataset}` }],
      },
      { name: 'Other', type: 'tile', url: 'o' },
    ];
    const made = await post('upsert', { mission, config: { ...config(), layers } });
    const uuid = made.body.newlyAddedUUIDs.find((n: any) => n.name === 'Points').uuid;
    const page = await connect(port());
    expect((await write(`append/${dataset}`, point(2))).status).toBe(200);
    const msg = await nextOf(page, mission, 'updateLayer');
    expect(msg).toEqual({
      info: { type: 'updateLayer', layerName: [uuid], mission },
      body: { mission },
      forceClientUpdate: true,
    });
    expect((await call('DELETE', `/api/geodatasets/remove/${dataset}`, { token: adminToken() })).status).toBe(
      200,
    );
    await page.next((m) => m.info?.type === 'updateLayer' && m.body?.mission === mission && m !== msg);
  });
});

describe('Live updates under AUTH=local', () => {
  const port = () => portOf(apiUrlLocal());

  it('sends a connection only the missions its session may view; anonymous ones are refused', async () => {
    const mine = uniqueName('livel');
    const theirs = uniqueName('livel');
    await post('upsert', { mission: mine, config: config() });
    await post('upsert', { mission: theirs, config: config() });
    const user = await userWithSession('user', [mine], apiUrlLocal());
    const viewer = await connect(port(), { cookie: user.cookie });
    await expect(connect(port())).rejects.toThrow(/401/);
    const admin = await connect(port(), { authorization: `Bearer ${adminToken()}` });

    // Through the AUTH=local service: the pushing function's mode decides who may view (both test
    // services share one database, so the AUTH=none one would send its changes to every connection).
    const addLocal = (mission: string, name: string) =>
      call('POST', '/api/configure/addLayer', {
        body: { mission, layer: { name, type: 'tile', url: name } },
        token: adminToken(),
        base: apiUrlLocal(),
      });
    expect((await addLocal(theirs, 'T')).status).toBe(200);
    expect((await addLocal(mine, 'M')).status).toBe(200);
    await nextOf(viewer, mine, 'addLayer');
    await nextOf(admin, theirs, 'addLayer');
    await nextOf(admin, mine, 'addLayer');
    await flushed(viewer);
    expect(clientMessages(viewer, theirs)).toHaveLength(0);
  });

  it("refuses a session cookie sent from another site's page", async () => {
    const user = await userWithSession('admin', [], apiUrlLocal());
    await expect(connect(port(), { cookie: user.cookie, origin: 'https://evil.example' })).rejects.toThrow(
      /403/,
    );
    const own = await connect(port(), {
      cookie: user.cookie,
      origin: `http://127.0.0.1:${port()}`,
    });
    expect(own.ws.readyState).toBe(WebSocket.OPEN);
  });
});

describe('HTTP and WebSocket on one port', () => {
  it('answers plain HTTP requests and WebSocket handshakes on the same port and path', async () => {
    const res = await fetch(`${apiUrl()}/api/configure/missions`);
    expect(res.status).toBe(200);
    const c = await connect(portOf(apiUrl()));
    c.send({ action: 'ping' });
    expect(await c.next((m) => m.type === 'pong')).toEqual({ type: 'pong' });
  });
});
