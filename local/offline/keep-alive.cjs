'use strict';
// Local serverless plugin: serverless-offline's HTTP servers keep an idle keep-alive connection open for
// 65 s instead of Node's default 5 s (docs/connections.md, "One process"). It changes nothing in the
// CloudFormation template or the deployed package.
//
// A server that closes an idle connection races with a client that reuses it: the client's request is
// sent on a socket the server has just closed, and fails with "other side closed" before any answer.
// Browsers send it again on a new connection; Node's fetch (undici) does so only for idempotent
// requests, so a script's POST fails. With Node's default of 5 s the race is met whenever a client pauses
// for about 5 s between requests: undici keeps an idle socket for 4 s (the server's `Keep-Alive: timeout`
// hint less a second), so a client whose event loop is held up by a second (a large JSON.parse, a
// synchronous child process) reuses the socket after the server closed it. At 65 s the same race needs a
// client idle for about a minute and held up for a second exactly then. The headers timeout stays above
// the keep-alive timeout, as Node requires.

const { dirname, join } = require('node:path');
const http = require('node:http');
const { expectShape, expectSource, resolveFrom } = require('../patches/drift.cjs');

const PATCH = 'offline/keep-alive';

/** How long an idle keep-alive connection stays open, in ms. */
const KEEP_ALIVE_MS = 65_000;

/** Makes every HTTP server created from now on keep idle connections `ms` ms; returns whether it did. */
function keepIdleConnections(ms = KEEP_ALIVE_MS) {
  const create = http.createServer;
  if (create.keepsIdleConnections) return true;
  const keeping = function createServer(...args) {
    const server = create.apply(this, args);
    server.keepAliveTimeout = ms;
    server.headersTimeout = Math.max(server.headersTimeout, ms + 1_000);
    return server;
  };
  keeping.keepsIdleConnections = true;
  http.createServer = keeping;
  return true;
}

/**
 * Checks that hapi (as serverless-offline uses it) makes its servers with `http.createServer`, looked up at
 * each call, and that a server has the two timeouts set here; throws a PatchDriftError.
 */
function target(servicePath) {
  const offline = dirname(resolveFrom(PATCH, 'serverless-offline', [servicePath]));
  const hapi = dirname(resolveFrom(PATCH, '@hapi/hapi', [offline]));
  expectSource(PATCH, join(hapi, 'core.js'), ['Http.createServer(']);
  const server = http.createServer();
  for (const k of ['keepAliveTimeout', 'headersTimeout'])
    expectShape(PATCH, typeof server[k] === 'number', `an http.Server has no numeric ${k}`);
  return http;
}

class OfflineKeepAlive {
  constructor(serverless) {
    // serverless-offline creates its servers (hapi's `http.createServer`) at `offline:start:init`, after
    // every plugin was constructed.
    keepIdleConnections();
    this.hooks = { 'before:offline:start:init': () => target(serverless.config.servicePath) };
  }
}

module.exports = OfflineKeepAlive;
module.exports.keepIdleConnections = keepIdleConnections;
module.exports.KEEP_ALIVE_MS = KEEP_ALIVE_MS;
module.exports.target = target;
