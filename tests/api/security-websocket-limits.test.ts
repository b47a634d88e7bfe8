import { afterAll, describe, expect, it } from 'vitest';
import { getDb } from '#lib/db/index.ts';
import { closeAll, connect, portOf, subscribed } from '../fixtures/wsClient.ts';
import { adminToken, apiUrl, apiUrlLocal, call, uniqueName, userWithSession } from '../helpers.ts';

// The attack: one anonymous socket sends a flood of `subscribe` messages with random mission names,
// storing rows for missions that do not exist and queueing the socket's work without end.
// The limits (docs/live-updates.md, "Limits"): a subscription names an existing mission the connection
// may view, at most 20 per connection, and more than 30 messages in 10 seconds close the connection.

afterAll(closeAll);

const upsert = (mission: string) =>
  call('POST', '/api/configure/upsert', {
    body: { mission, config: { msv: { view: [0, 0, 1] }, tools: [], layers: [] } },
    token: adminToken(),
  });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const storedFor = async (missions: string[]) =>
  (
    await getDb()
      .sql`select count(*)::int as n from ws_subscriptions where mission = any(${missions}::text[])`
  )[0].n;

describe('WebSocket subscriptions need an existing mission the connection may view', () => {
  it('refuses missions that do not exist and stores nothing for them', async () => {
    const client = await connect(portOf(apiUrl()));
    const names = Array.from({ length: 5 }, () => uniqueName('ghost'));
    for (const mission of names) {
      const answer = await subscribed(client, mission);
      expect(answer).toMatchObject({ type: 'error', action: 'subscribe', mission });
      expect(answer.message).toBe(`Mission '${mission}' not found.`);
    }
    expect(await storedFor(names)).toBe(0);
    // A mission that exists is still subscribed to, on the same connection.
    const real = uniqueName('wsreal');
    expect((await upsert(real)).status).toBe(200);
    expect(await subscribed(client, real)).toEqual({ type: 'subscribed', mission: real });
  });

  it('under AUTH=local refuses anonymous connections and missions the user may not view', async () => {
    const mine = uniqueName('wsmine');
    const theirs = uniqueName('wstheirs');
    await upsert(mine);
    await upsert(theirs);
    await expect(connect(portOf(apiUrlLocal()))).rejects.toThrow(/401/);
    const user = await userWithSession('user', [mine], apiUrlLocal());
    const viewer = await connect(portOf(apiUrlLocal()), { cookie: user.cookie });
    expect(await subscribed(viewer, mine)).toEqual({ type: 'subscribed', mission: mine });
    expect(await subscribed(viewer, theirs)).toMatchObject({ type: 'error', mission: theirs });
    expect(await storedFor([theirs])).toBe(0);
  });
});

describe('WebSocket subscriptions per connection', () => {
  it('caps one connection at 20 missions; unsubscribing frees a place', async () => {
    const missions = Array.from({ length: 21 }, () => uniqueName('wscap'));
    for (const m of missions) expect((await upsert(m)).status).toBe(200);
    const client = await connect(portOf(apiUrl()));
    for (const m of missions.slice(0, 20)) {
      expect(await subscribed(client, m)).toEqual({ type: 'subscribed', mission: m });
    }
    const refused = await subscribed(client, missions[20]);
    expect(refused).toMatchObject({ type: 'error', action: 'subscribe', mission: missions[20] });
    expect(refused.message).toContain('at most 20 missions');
    expect(await storedFor(missions)).toBe(20);
    // Subscribing again to a mission already held is no new subscription.
    client.messages.length = 0;
    expect(await subscribed(client, missions[0])).toEqual({ type: 'subscribed', mission: missions[0] });

    client.send({ action: 'unsubscribe', mission: missions[0] });
    await client.next((m) => m.type === 'unsubscribed');
    client.messages.length = 0;
    expect(await subscribed(client, missions[20])).toEqual({ type: 'subscribed', mission: missions[20] });
    expect(await storedFor(missions)).toBe(20);
  });
});

describe('WebSocket subscriptions sent at once', () => {
  it('holds the cap of 20 when 25 subscribes of one connection arrive together', async () => {
    const missions = Array.from({ length: 25 }, () => uniqueName('wsburst'));
    await Promise.all(missions.map(async (m) => expect((await upsert(m)).status).toBe(200)));
    const client = await connect(portOf(apiUrl()));
    for (const mission of missions) client.send({ action: 'subscribe', mission });
    // A generous deadline: the 25 subscribes are handled one after the other (the row lock), each a few
    // statements, and under a loaded machine and the Data API stand-in they take seconds, not the usual 1-3.
    const deadline = Date.now() + 60_000;
    const answers = () => client.messages.filter((m) => m.type === 'subscribed' || m.type === 'error');
    while (answers().length < 25 && Date.now() < deadline) await sleep(50);
    expect(answers().filter((m) => m.type === 'subscribed')).toHaveLength(20);
    expect(answers().filter((m) => m.type === 'error')).toHaveLength(5);
    expect(await storedFor(missions)).toBe(20);
  }, 90_000);
});

describe('WebSocket message rate', () => {
  it('closes a connection that sends more than 30 messages in 10 seconds, and only that one', async () => {
    const flood = await connect(portOf(apiUrl()));
    const calm = await connect(portOf(apiUrl()));
    const names = Array.from({ length: 100 }, () => uniqueName('flood'));
    for (const mission of names) flood.send({ action: 'subscribe', mission });

    const why = await flood.next((m) => m.type === 'error' && m.status === 429, 30_000);
    expect(why.message).toBe('More than 30 messages in 10 seconds: connection closed.');
    await expect(Promise.race([flood.closed, sleep(15_000).then(() => 'open')])).resolves.not.toBe('open');
    // At most the 30 allowed messages were handled, none stored a row, the connection row is gone.
    expect(flood.messages.filter((m) => m.action === 'subscribe').length).toBeLessThanOrEqual(30);
    expect(await storedFor(names)).toBe(0);

    calm.send({ action: 'ping' });
    expect(await calm.next((m) => m.type === 'pong')).toEqual({ type: 'pong' });
  }, 60_000);

  it('keeps a connection that stays under the limit', async () => {
    const client = await connect(portOf(apiUrl()));
    for (let i = 0; i < 25; i++) client.send({ action: 'ping' });
    // Counted by pongs: a connection that subscribed to nothing also gets the MMGIS client messages of
    // other test files' changes meanwhile (AUTH=none).
    const pongs = () => client.messages.filter((m) => m.type === 'pong');
    const deadline = Date.now() + 60_000;
    while (pongs().length < 25 && Date.now() < deadline) await sleep(50);
    expect(pongs()).toHaveLength(25);
    expect(client.ws.readyState).toBe(client.ws.OPEN);
  }, 90_000);
});

describe('WebSocket frames and messages are bounded as API Gateway bounds them', () => {
  const KiB = 1024;
  /** Sends `bytes` as one message in frames of `frame` bytes (the last one smaller). */
  const sendInFrames = (client: Awaited<ReturnType<typeof connect>>, bytes: number, frame: number) => {
    const text = `{"action":"ping","pad":"${'x'.repeat(bytes - 28)}"}`;
    for (let at = 0; at < text.length; at += frame) {
      const part = text.slice(at, at + frame);
      client.ws.send(part, { fin: at + frame >= text.length, binary: false, compress: false });
    }
  };

  it('answers a message of 120 KiB sent in 30 KiB frames', async () => {
    const client = await connect(portOf(apiUrl()));
    sendInFrames(client, 120 * KiB, 30 * KiB);
    expect(await client.next((m) => m.type === 'pong')).toMatchObject({ type: 'pong' });
  });

  it('closes the connection with 1009 on a frame over 32 KiB', async () => {
    const client = await connect(portOf(apiUrl()));
    sendInFrames(client, 40 * KiB, 40 * KiB);
    expect(await client.closed).toBe(1009);
  });

  it('closes the connection with 1009 on a message over 128 KiB, even in small frames', async () => {
    const client = await connect(portOf(apiUrl()));
    sendInFrames(client, 200 * KiB, 16 * KiB);
    expect(await client.closed).toBe(1009);
    // The service lives on (an unheard socket error once ended its process): a new connection answers.
    const next = await connect(portOf(apiUrl()));
    next.send({ action: 'ping' });
    expect(await next.next((m) => m.type === 'pong')).toMatchObject({ type: 'pong' });
  });
});
