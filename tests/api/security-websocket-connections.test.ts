import { afterAll, describe, expect, it } from 'vitest';
import { getDb } from '#lib/db/index.ts';
import { type Client, closeAll, connect, loopbackAddress, portOf } from '../fixtures/wsClient.ts';
import { adminToken, apiUrl, apiUrlLocal, userWithSession } from '../helpers.ts';

// The attack: one address opens WebSocket after WebSocket (300 anonymous ones were accepted under
// AUTH=local, where an anonymous connection receives nothing), each a row and a held socket. The limits
// (docs/live-updates.md, "Limits"): under AUTH=local an anonymous connection is refused at $connect (401);
// an address holds at most WEBSOCKET_MAX_PER_ADDRESS (20) connections, counted in the database, so the
// cap holds across function instances (here: both test services, one database); over it, 429.
// Each test opens its sockets from a loopback address of its own (the event's sourceIp).

afterAll(closeAll);

const CAP = 20;
const stored = async (from: string) =>
  (await getDb().sql`select count(*)::int as n from ws_connections where source_ip = ${from}`)[0].n as number;
/** 'open', or the refusal's message (`connect refused: <status>`). */
const outcome = (p: Promise<Client>) =>
  p.then(
    () => 'open',
    (e: Error) => e.message,
  );
function tally(outcomes: string[]): Record<string, number> {
  const t: Record<string, number> = {};
  for (const o of outcomes) t[o] = (t[o] ?? 0) + 1;
  return t;
}

async function until(check: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('WebSocket connections under AUTH=local', () => {
  const port = () => portOf(apiUrlLocal());

  it('refuses anonymous connections at $connect and stores none; logged-in ones open', async () => {
    const from = loopbackAddress();
    const anonymous = await Promise.all(
      Array.from({ length: 30 }, () => outcome(connect(port(), {}, { from }))),
    );
    expect(tally(anonymous)).toEqual({ 'connect refused: 401': 30 });
    expect(await stored(from)).toBe(0);

    // The MMGIS web client's page sends its session cookie with the handshake; scripts a Bearer token.
    const user = await userWithSession('user', [], apiUrlLocal());
    const page = await connect(
      port(),
      { cookie: user.cookie, origin: `http://127.0.0.1:${port()}` },
      { from },
    );
    const script = await connect(port(), { authorization: `Bearer ${adminToken()}` }, { from });
    for (const c of [page, script]) expect(c.ws.readyState).toBe(c.ws.OPEN);
    expect(await stored(from)).toBe(2);
  });
});

describe('WebSocket connections per address', () => {
  it(`caps an address at ${CAP} under AUTH=none: the next is refused (429) and stored nowhere; closing one frees a place`, async () => {
    const from = loopbackAddress();
    const port = portOf(apiUrl());
    const held: Client[] = [];
    for (let i = 0; i < CAP; i++) held.push(await connect(port, {}, { from }));
    expect(await stored(from)).toBe(CAP);
    expect(await outcome(connect(port, {}, { from }))).toBe('connect refused: 429');
    expect(await stored(from)).toBe(CAP);
    // Another address is not held back.
    const other = loopbackAddress();
    expect(await outcome(connect(port, {}, { from: other }))).toBe('open');

    await held[0].close();
    await until(async () => (await stored(from)) === CAP - 1);
    expect(await outcome(connect(port, {}, { from }))).toBe('open');
    expect(await outcome(connect(port, {}, { from }))).toBe('connect refused: 429');
  });

  it('holds for connections opened at once on two services of one database (one count across instances)', async () => {
    const from = loopbackAddress();
    const none = portOf(apiUrl());
    const local = portOf(apiUrlLocal());
    const token = { authorization: `Bearer ${adminToken()}` };
    const outcomes = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        outcome(i % 2 ? connect(none, {}, { from }) : connect(local, token, { from })),
      ),
    );
    expect(tally(outcomes)).toEqual({ open: CAP, 'connect refused: 429': 30 - CAP });
    expect(await stored(from)).toBe(CAP);
  });
});
