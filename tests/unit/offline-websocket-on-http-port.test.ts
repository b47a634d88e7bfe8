import http from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';

const require = createRequire(import.meta.url);
const { bridgeUpgrades } = require('../../local/offline/websocket-on-http-port.cjs');

const open: { close(): void }[] = [];
afterEach(() => {
  for (const s of open.splice(0)) s.close();
});

/** A node HTTP server on a free loopback port. */
async function listening(handler?: http.RequestListener): Promise<{ server: http.Server; port: number }> {
  const server = http.createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  open.push(server);
  return { server, port: (server.address() as AddressInfo).port };
}

describe('offline-websocket-on-http-port plugin (docs/live-updates.md)', () => {
  it("answers a WebSocket handshake on the HTTP server's port from the WebSocket server, on the same socket", async () => {
    const api = await listening((_req, res) => res.end('api'));
    const sockets = await listening();
    const wss = new WebSocketServer({ server: sockets.server });
    open.push(wss);
    let seen: string | undefined;
    wss.on('connection', (ws, req) => {
      seen = req.socket.localPort === api.port ? 'api port' : 'other';
      ws.send(`hello ${req.url}`);
    });
    bridgeUpgrades(api.server, sockets.server);

    const ws = new WebSocket(`ws://127.0.0.1:${api.port}/some/path`);
    const message = await new Promise<string>((resolve, reject) => {
      ws.once('message', (d) => resolve(String(d)));
      ws.once('error', reject);
    });
    ws.close();
    expect(message).toBe('hello /some/path');
    expect(seen).toBe('api port');
    // Plain requests on that port are the HTTP server's still.
    expect(await (await fetch(`http://127.0.0.1:${api.port}/`)).text()).toBe('api');
  });

  it('answers any other Upgrade 400 and leaves the WebSocket server alone', async () => {
    const api = await listening();
    const sockets = await listening();
    let upgrades = 0;
    sockets.server.on('upgrade', () => upgrades++);
    bridgeUpgrades(api.server, sockets.server);
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = http.request({
        port: api.port,
        host: '127.0.0.1',
        headers: { Connection: 'Upgrade', Upgrade: 'h2c' },
      });
      req.on('response', (res) => resolve(res.statusCode));
      req.on('upgrade', () => resolve(101));
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(400);
    expect(upgrades).toBe(0);
  });
});
