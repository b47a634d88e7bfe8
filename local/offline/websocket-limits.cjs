'use strict';
// Local serverless plugin: under `serverless offline`, the WebSocket API refuses what API Gateway refuses
// (docs/live-updates.md, "Limits"): a frame over 32 KiB or a message over 128 KiB closes the connection
// with 1009 (message too big). serverless-offline's `ws` server accepts messages up to `ws`'s default of
// 100 MiB, held in memory whole before any handler sees them. It changes nothing in the CloudFormation
// template or the deployed package: API Gateway applies the same two limits itself. If `ws` (the copy
// serverless-offline imports) no longer looks as it did, serverless-offline does not start
// (local/patches/drift.cjs).

const { dirname } = require('node:path');
const { expectShape, requireFrom, resolveFrom } = require('../patches/drift.cjs');

const PATCH = 'offline/websocket-limits';

/** API Gateway's WebSocket quotas: frame size and message payload size. */
const MAX_FRAME_BYTES = 32 * 1024;
const MAX_MESSAGE_BYTES = 128 * 1024;

/**
 * Bounds every WebSocket server `ws` makes in this process from now on: messages by `maxPayload` (its own
 * check, on the total of a message's frames), frames by a check before each data frame's payload is read.
 * Only the server side (`_isServer`): a client in the same process is left alone.
 */
function boundWebSockets(ws = require('ws')) {
  const Server = ws.WebSocketServer ?? ws.Server;
  const Receiver = ws.Receiver;
  if (!Server?.prototype?.completeUpgrade || !Receiver?.prototype?.haveLength) return false;
  if (Receiver.prototype.haveLength.boundFrames) return true;

  const completeUpgrade = Server.prototype.completeUpgrade;
  Server.prototype.completeUpgrade = function boundedUpgrade(...args) {
    if (!(this.options.maxPayload > 0 && this.options.maxPayload <= MAX_MESSAGE_BYTES))
      this.options.maxPayload = MAX_MESSAGE_BYTES;
    // A refused frame or message is an 'error' event on the socket before it closes with 1009;
    // serverless-offline listens for none, and an unheard 'error' ended the whole process.
    const last = args.length - 1;
    const done = args[last];
    if (typeof done === 'function') {
      args[last] = (socket, ...rest) => {
        socket.on('error', () => {});
        return done(socket, ...rest);
      };
    }
    return completeUpgrade.apply(this, args);
  };

  const haveLength = Receiver.prototype.haveLength;
  function boundedHaveLength(cb) {
    if (this._isServer && this._opcode < 0x08 && this._payloadLength > MAX_FRAME_BYTES) {
      cb(
        this.createError(
          RangeError,
          `Frame of ${this._payloadLength} bytes exceeds ${MAX_FRAME_BYTES}`,
          false,
          1009,
          'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH',
        ),
      );
      return;
    }
    return haveLength.call(this, cb);
  }
  boundedHaveLength.boundFrames = true;
  Receiver.prototype.haveLength = boundedHaveLength;
  return true;
}

/**
 * The `ws` serverless-offline imports, checked for the methods this patch wraps and the receiver's fields
 * it reads; throws a PatchDriftError.
 */
function target(servicePath) {
  const offline = dirname(resolveFrom(PATCH, 'serverless-offline', [servicePath]));
  const ws = requireFrom(PATCH, 'ws', [offline]);
  const Server = ws.WebSocketServer ?? ws.Server;
  expectShape(
    PATCH,
    typeof Server?.prototype?.completeUpgrade === 'function',
    'ws has no Server.completeUpgrade()',
  );
  expectShape(
    PATCH,
    typeof ws.Receiver?.prototype?.haveLength === 'function',
    'ws has no Receiver.haveLength()',
  );
  expectShape(
    PATCH,
    typeof ws.Receiver.prototype.createError === 'function',
    'ws has no Receiver.createError()',
  );
  const receiver = new ws.Receiver({ isServer: true });
  for (const k of ['_isServer', '_opcode', '_payloadLength'])
    expectShape(PATCH, k in receiver, `a ws Receiver has no ${k}`);
  return ws;
}

class OfflineWebSocketLimits {
  constructor(serverless) {
    // Before serverless-offline makes its server (`offline:start:init`); the patch is process-wide.
    const bound = () => boundWebSockets(target(serverless.config.servicePath));
    this.hooks = { 'offline:start:init': bound, 'before:offline:start:init': bound };
  }
}

module.exports = OfflineWebSocketLimits;
module.exports.boundWebSockets = boundWebSockets;
module.exports.target = target;
module.exports.MAX_FRAME_BYTES = MAX_FRAME_BYTES;
module.exports.MAX_MESSAGE_BYTES = MAX_MESSAGE_BYTES;
