'use strict';
// Local serverless plugin: serverless-offline's HTTP server gzips at zlib's fastest level (docs/web.md,
// "Compression"). It changes nothing in the CloudFormation template or the deployed package.
//
// serverless-offline's hapi server gzips (or deflates) every compressible answer of 1 KB or more that the
// client accepts compressed, as browsers always do, at zlib's default level 6. Under `npm start` the answer
// crosses a loopback or a local network, where the bytes cost next to nothing and the compression's CPU is
// taken from the service and the database: an items page of 1,000 features (202 KB) takes 4.6 ms to gzip
// at level 6 and 2.3 ms at level 1, for 43.6 KB against 48.0 KB. This plugin makes hapi's encoder use
// level 1 where the route names no level. If hapi's compression module is not where this version keeps it,
// or no longer looks as it did, serverless-offline does not start (local/patches/drift.cjs).

const { dirname, join } = require('node:path');
const { expectShape, PatchDriftError } = require('../patches/drift.cjs');

const PATCH = 'offline/fast-gzip';

/** zlib's fastest level. */
const LEVEL = 1;

function compressionModule(servicePath) {
  try {
    const offline = require.resolve('serverless-offline', { paths: [servicePath] });
    const hapi = require.resolve('@hapi/hapi', { paths: [dirname(offline)] });
    return require(join(dirname(hapi), 'compression.js'));
  } catch {
    return undefined;
  }
}

/** Makes `Compression`'s gzip and deflate encoders use `LEVEL` unless the route sets one; returns whether it did. */
function fastGzip(Compression) {
  const proto = Compression?.prototype;
  if (!proto || typeof proto.encoder !== 'function') return false;
  if (proto.encoder.fastGzip) return true;
  const encoder = proto.encoder;
  const fast = function (request, encoding) {
    const options = request.route?.settings?.compression?.[encoding];
    if ((encoding === 'gzip' || encoding === 'deflate') && options?.level === undefined) {
      return this.encoders[encoding]({ ...options, level: LEVEL });
    }
    return encoder.call(this, request, encoding);
  };
  fast.fastGzip = true;
  proto.encoder = fast;
  return true;
}

/** hapi's `Compression` as serverless-offline uses it, checked for what `fastGzip` calls; throws a PatchDriftError. */
function target(servicePath) {
  const Compression = compressionModule(servicePath);
  if (!Compression)
    throw new PatchDriftError(PATCH, "hapi's lib/compression.js is not found beside serverless-offline");
  expectShape(PATCH, typeof Compression.prototype?.encoder === 'function', 'Compression has no encoder()');
  const { encoders } = new Compression();
  for (const e of ['gzip', 'deflate'])
    expectShape(PATCH, typeof encoders?.[e] === 'function', `Compression has no ${e} encoder`);
  return Compression;
}

class OfflineFastGzip {
  constructor(serverless) {
    // Patched now (before serverless-offline makes its server); a drift stops `serverless offline` only, not
    // another command (`serverless package`) that loads the plugins too.
    let drift = null;
    try {
      fastGzip(target(serverless.config.servicePath));
    } catch (e) {
      drift = e;
    }
    this.hooks = {
      'before:offline:start:init': () => {
        if (drift) throw drift;
      },
    };
  }
}

module.exports = OfflineFastGzip;
module.exports.compressionModule = compressionModule;
module.exports.fastGzip = fastGzip;
module.exports.LEVEL = LEVEL;
module.exports.target = target;
