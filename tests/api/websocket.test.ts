import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { WebSocket } from 'ws';
import { getDb } from '#lib/db/index.ts';
import { adminToken, apiUrlLocal, call, uniqueName, userWithSession } from '../helpers.ts';

interface Client {
  ws: WebSocket;
  messages: any[];
  next(predicate: (m: any) => boolean, timeoutMs?: number): Promise<any>;
  send(msg: unknown): void;
  close(): Promise<void>;
}

const open: Client[] = [];

function connect(port: number, headers: Record<string, string> = {}): Promise<Client> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}`, { headers });
    const messages: any[] = [];
    const waiters: { predicate: (m: any) => boolean; resolve: (m: any) => void }[] = [];
    ws.on('message', (data) => {
      const msg = JSON.parse(String(data));
      messages.push(msg);
      for (const w of [...waiters]) {
        if (w.predicate(msg)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(msg);
        }
      }
    });
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => reject(new Error(`connect refused: ${res.statusCode}`)));
    ws.once('open', () => {
      const client: Client = {
        ws,
        messages,
        next(predicate, timeoutMs = 10_000) {
          const seen = messages.find(predicate);
          if (seen) return Promise.resolve(seen);
          return new Promise((res, rej) => {
            const timer = setTimeout(
              () => rej(new Error(`no matching message; got ${JSON.stringify(messages)}`)),
              timeoutMs,
            );
            waiters.push({
              predicate,
              resolve: (m) => {
                clearTimeout(timer);
                res(m);
              },
            });
          });
        },
        send: (msg) => ws.send(typeof msg === 'string' ? msg : JSON.stringify(msg)),
        close: () =>
          new Promise((res) => {
            if (ws.readyState === WebSocket.CLOSED) return res();
            ws.once('close', () => res());
            ws.close();
          }),
      };
      open.push(client);
      resolve(client);
    });
  });
}

afterAll(async () => {
  await Promise.all(open.map((c) => c.close()));
});

const post = (path: string, body: unknown) =>
  call('POST', `/api/configure/${path}`, { body, token: adminToken() });
const config = () => ({ msv: { view: [0, 0, 1] }, tools: [], layers: [] });
const configEvents = (c: Client) => c.messages.filter((m) => m.type === 'config');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function subscribed(client: Client, mission: string) {
  client.send({ action: 'subscribe', mission });
  return client.next((m) => m.mission === mission && (m.type === 'subscribed' || m.type === 'error'));
}

describe('WebSocket live updates (AUTH=none)', () => {
  const port = () => inject('websocketPort');

  it('pushes exactly one event for addLayer with forceClientUpdate, none without', async () => {
    const mission = uniqueName('ws');
    const other = uniqueName('ws');
    expect((await post('upsert', { mission, config: config() })).status).toBe(200);
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
    await sleep(500);
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
    await sleep(300);
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
    await sleep(500);
    expect(configEvents(client)).toHaveLength(0);

    const sql = getDb().sql;
    const other = await connect(port());
    await subscribed(other, mission);
    const before = await sql`select count(*)::int as n from ws_subscriptions where mission = ${mission}`;
    expect(before[0].n).toBe(1);
    await other.close();
    const deadline = Date.now() + 5000;
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
    await sql`insert into ws_connections (connection_id, endpoint) values (${ghost}, ${`http://127.0.0.1:${port()}`})`;
    await sql`insert into ws_subscriptions (connection_id, mission) values (${ghost}, ${mission})`;
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

describe('WebSocket under AUTH=local', () => {
  const port = () => inject('websocketPortLocal');

  it('subscribes only to missions the connection may view (cookie or token on connect)', async () => {
    const mine = uniqueName('wsl');
    const theirs = uniqueName('wsl');
    await post('upsert', { mission: mine, config: config() });
    await post('upsert', { mission: theirs, config: config() });

    const anonymous = await connect(port());
    const anon = await subscribed(anonymous, mine);
    expect(anon.type).toBe('error');
    expect(anon.message).toMatch(/log in/i);

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
    await sleep(300);
    expect(configEvents(viewer)).toHaveLength(1);
    expect(configEvents(anonymous)).toHaveLength(0);
  });

  it('refuses a connection with an invalid Bearer token', async () => {
    await expect(connect(port(), { authorization: 'Bearer not-a-token' })).rejects.toThrow(/401|refused/);
  });
});
