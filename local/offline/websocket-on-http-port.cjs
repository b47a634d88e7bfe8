'use strict';
// Local serverless plugin: under `serverless offline`, the WebSocket API answers on the HTTP API's port
// too (docs/live-updates.md, "Where the WebSocket answers"). It changes nothing in the CloudFormation
// template or the deployed package.
//
// serverless-offline serves the HTTP API and the WebSocket API from two node HTTP servers on two ports
// (`httpPort`, `websocketPort`); the `ws` library answers handshakes from the second one's `upgrade`
// event. The MMGIS web client opens `ws://<its own host>/`, so the handshake must be answered where the
// pages and the API are. This plugin notes the HTTP servers created in the process (node's
// `http.createServer`, which hapi calls for each of serverless-offline's servers), and once
// serverless-offline listens, hands each WebSocket handshake the HTTP port receives to the WebSocket
// server's `upgrade` listeners: the same socket, nothing copied, and the connection's own address is the
// event's `sourceIp`. The WebSocket port keeps answering too (its `@connections` management API is how the
// functions push). Any other `Upgrade` request is answered 400. If either server is not found,
// serverless-offline does not start (local/patches/drift.cjs).

const { dirname, join } = require('node:path');
const http = require('node:http');
const { expectShape, expectSource, resolveFrom } = require('../patches/drift.cjs');

const PATCH = 'offline/websocket-on-http-port';

/** Whether the request asks for a WebSocket (`Upgrade: websocket`, any case). */
function isWebSocketUpgrade(req) {
  return String(req.headers.upgrade ?? '').toLowerCase() === 'websocket';
}

/** Hands `from`'s WebSocket handshakes to `to`'s `upgrade` listeners; other upgrades answer 400. */
function bridgeUpgrades(from, to) {
  from.on('upgrade', (req, socket, head) => {
    if (isWebSocketUpgrade(req)) {
      to.emit('upgrade', req, socket, head);
      return;
    }
    socket.on('error', () => {});
    socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
  });
}

/** The HTTP servers made in this process from now on (`http.createServer`), to find them by port later. */
function noteServers() {
  const made = [];
  const create = http.createServer;
  http.createServer = function createServer(...args) {
    const server = create.apply(this, args);
    made.push(new WeakRef(server));
    return server;
  };
  return (port) =>
    made.map((ref) => ref.deref()).find((s) => s?.listening && s.address()?.port === Number(port));
}

/**
 * Checks that serverless-offline's two servers are hapi servers (hapi makes each with `http.createServer`)
 * on the `httpPort` and `websocketPort` options, and that its WebSocket server answers handshakes from its
 * HTTP server's `upgrade` event (`ws` on `server`); throws a PatchDriftError.
 */
function target(servicePath) {
  const src = dirname(resolveFrom(PATCH, 'serverless-offline', [servicePath]));
  const hapi = dirname(resolveFrom(PATCH, '@hapi/hapi', [src]));
  expectSource(PATCH, join(hapi, 'core.js'), ['Http.createServer(']);
  expectSource(PATCH, join(src, 'events', 'websocket', 'HttpServer.js'), [
    'import { Server } from "@hapi/hapi"',
  ]);
  expectSource(PATCH, join(src, 'events', 'websocket', 'WebSocketServer.js'), [
    'new WsWebSocketServer({',
    'server: this.#sharedServer',
  ]);
  expectSource(PATCH, join(src, 'config', 'defaultOptions.js'), ['httpPort:', 'websocketPort:']);
  return http;
}

/** Throws a PatchDriftError unless both servers were found and are two. */
function expectBoth(from, to, options) {
  expectShape(
    PATCH,
    from && to && from !== to,
    `serverless-offline's HTTP server on port ${options.httpPort} and WebSocket server on port ` +
      `${options.websocketPort} were not both found among the servers http.createServer made`,
  );
}

class OfflineWebSocketOnHttpPort {
  constructor(serverless) {
    const listeningOn = noteServers();
    // Runs after serverless-offline's own `offline:start:init` (it is listed first), which starts its
    // servers and resolves once they listen.
    this.hooks = {
      'offline:start:init': () => {
        const options = serverless.service.custom?.['serverless-offline'] ?? {};
        const from = listeningOn(options.httpPort);
        const to = listeningOn(options.websocketPort);
        expectBoth(from, to, options);
        bridgeUpgrades(from, to);
      },
    };
  }
}

module.exports = OfflineWebSocketOnHttpPort;
module.exports.bridgeUpgrades = bridgeUpgrades;
module.exports.isWebSocketUpgrade = isWebSocketUpgrade;
module.exports.target = target;
module.exports.expectBoth = expectBoth;
