import { afterAll, describe, expect, it } from 'vitest';
import { type Client, closeAll, connect, flushed, portOf } from '../fixtures/wsClient.ts';
import { adminToken, apiUrl, apiUrlLocal, call, uniqueName, userWithSession } from '../helpers.ts';

// POST /api/broadcast/layerUpdate (docs/live-updates.md, "Layer refresh").
afterAll(closeAll);

const config = () => ({ msv: { view: [0, 0, 1] }, tools: [], layers: [] });
const newMission = async (base?: string) => {
  const mission = uniqueName('bcast');
  const res = await call('POST', '/api/configure/upsert', {
    body: { mission, config: config() },
    token: adminToken(),
    base,
  });
  expect(res.status).toBe(200);
  return mission;
};
const broadcast = (body: unknown, opts: { token?: string; cookie?: string; base?: string } = {}) =>
  call('POST', '/api/broadcast/layerUpdate', { body, ...opts });
const refreshes = (c: Client, mission: string) =>
  c.messages.filter((m) => m.info?.type === 'refreshLayer' && m.body?.mission === mission);

describe('broadcast/layerUpdate (AUTH=none)', () => {
  const port = () => portOf(apiUrl());

  it("sends the client's refreshLayer message to the mission's open maps, a name or a list", async () => {
    const mission = await newMission();
    const page = await connect(port());
    const one = await broadcast({ mission, layerName: 'Rovers' }, { token: adminToken() });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({
      status: 'success',
      message: 'Layer refresh broadcasted.',
      broadcasted: true,
    });
    expect(one.body.connections).toBeGreaterThanOrEqual(1);
    const msg = await page.next((m) => m.info?.type === 'refreshLayer' && m.body?.mission === mission);
    // The established server's envelope, and `info.mission` as in the configuration messages.
    expect(msg).toEqual({ info: { type: 'refreshLayer', layerName: 'Rovers', mission }, body: { mission } });

    const two = await broadcast({ mission, layerName: ['a', 'b'] }, { token: adminToken() });
    expect(two.status).toBe(200);
    await page.next((m) => m.info?.type === 'refreshLayer' && Array.isArray(m.info.layerName));
    expect(refreshes(page, mission).map((m) => m.info.layerName)).toEqual(['Rovers', ['a', 'b']]);
  });

  it('refuses non-administrators, a bad body, and an unknown mission; sends nothing then', async () => {
    const mission = await newMission();
    const page = await connect(port());
    expect((await broadcast({ mission, layerName: 'x' })).status).toBe(401);
    const user = await userWithSession('user', [mission]);
    expect((await broadcast({ mission, layerName: 'x' }, { cookie: user.cookie })).status).toBe(403);

    const noLayer = await broadcast({ mission }, { token: adminToken() });
    expect(noLayer.status).toBe(400);
    expect(noLayer.body.message).toContain('layerName');
    const noMission = await broadcast({ layerName: 'x' }, { token: adminToken() });
    expect(noMission.status).toBe(400);
    expect(noMission.body.message).toContain('mission');
    for (const layerName of ['', [], [''], [1], 'x'.repeat(257)]) {
      expect((await broadcast({ mission, layerName }, { token: adminToken() })).status).toBe(400);
    }
    expect((await broadcast({ mission: 'bad/name', layerName: 'x' }, { token: adminToken() })).status).toBe(
      400,
    );

    const unknown = await broadcast(
      { mission: uniqueName('nomission'), layerName: 'x' },
      { token: adminToken() },
    );
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ status: 'failure', message: expect.stringContaining('Unknown mission') });

    await flushed(page);
    expect(refreshes(page, mission)).toHaveLength(0);
  });
});

describe('broadcast/layerUpdate under AUTH=local', () => {
  const port = () => portOf(apiUrlLocal());

  it("reaches only the connections that may view the mission; an administrator's session may send it", async () => {
    const mine = await newMission(apiUrlLocal());
    const theirs = await newMission(apiUrlLocal());
    const admin = await userWithSession('admin', [], apiUrlLocal());
    const user = await userWithSession('user', [mine], apiUrlLocal());
    const viewer = await connect(port(), { cookie: user.cookie });
    const other = await connect(port(), {
      cookie: (await userWithSession('user', [theirs], apiUrlLocal())).cookie,
    });

    const res = await broadcast(
      { mission: mine, layerName: 'L' },
      { cookie: admin.cookie, base: apiUrlLocal() },
    );
    expect(res.status).toBe(200);
    await viewer.next((m) => m.info?.type === 'refreshLayer' && m.body?.mission === mine);
    await flushed(other);
    expect(refreshes(other, mine)).toHaveLength(0);

    // A user who views the mission is still no administrator.
    expect(
      (await broadcast({ mission: mine, layerName: 'L' }, { cookie: user.cookie, base: apiUrlLocal() }))
        .status,
    ).toBe(403);
  });
});
