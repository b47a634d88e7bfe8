'use strict';
// Local serverless plugin: an answer serverless-offline's hapi server makes itself, before any function
// runs, has the API's failure shape `{status:'failure', message}` (docs/input.md) instead of hapi's
// `{statusCode, error, message}`. It changes nothing in the CloudFormation template or the deployed package.
//
// The one a client meets is the size refusal: serverless-offline reads at most 10 MB of a request body
// (hapi's route `payload.maxBytes`) and answers a larger one 413 itself, while a body between MAX_BODY_BYTES
// (6 MB) and 10 MB reaches the function, whose refusal (lib/http/middleware/bodyLimit.ts) has our shape.
// Both now have it and name the limit.

const { dirname } = require('node:path');
const { expectShape, requireFrom, resolveFrom } = require('../patches/drift.cjs');

const PATCH = 'offline/failure-shape';

/** serverless-offline's body limit (its routes' `payload.maxBytes`). */
const OFFLINE_MAX_BYTES = 10 * 1024 * 1024;

/** A refusal's message: for a body too large, the limit it passed; otherwise hapi's own message. */
function failureMessage(request, boom) {
  if (boom.output.statusCode === 413) {
    const limit = request.route?.settings?.payload?.maxBytes ?? OFFLINE_MAX_BYTES;
    // The API's own limit, as lib/settings.ts declares it.
    const lambdaLimit = require('../../scripts/settings.cjs').setting('MAX_BODY_BYTES');
    return (
      `The request body is larger than ${limit} bytes (the local server's ` +
      `limit; the API takes at most ${lambdaLimit} bytes, the API Gateway/Lambda limit). ` +
      'Upload large GeoJSON through POST /api/geodatasets/upload (a presigned S3 URL) instead.'
    );
  }
  return boom.output.payload?.message || boom.message || 'The request was refused.';
}

/** onPreResponse: hapi's own error answers (Boom) get the failure shape; a function's answer is untouched. */
function reshape(request, h) {
  const res = request.response;
  if (res?.isBoom && res.output?.payload && !('status' in res.output.payload)) {
    res.output.payload = { status: 'failure', message: failureMessage(request, res) };
  }
  return h.continue;
}

/** Makes every hapi server started from now on reshape its own error answers; returns whether it did. */
function patchHapi(hapi) {
  const proto = Object.getPrototypeOf(hapi.server());
  if (proto.start.failureShape) return true;
  const start = proto.start;
  const patched = function (...args) {
    this.ext('onPreResponse', reshape);
    return start.apply(this, args);
  };
  patched.failureShape = true;
  proto.start = patched;
  return true;
}

/**
 * hapi as serverless-offline uses it, with the server methods this patch wraps and the Boom answer shape
 * `reshape` reads; throws a PatchDriftError when they moved (local/patches/drift.cjs).
 */
function target(servicePath) {
  const hapi = requireFrom(PATCH, '@hapi/hapi', [servicePath]);
  const proto = Object.getPrototypeOf(hapi.server());
  for (const m of ['start', 'ext'])
    expectShape(PATCH, typeof proto[m] === 'function', `hapi's server has no ${m}()`);
  const Boom = requireFrom(PATCH, '@hapi/boom', [dirname(resolveFrom(PATCH, '@hapi/hapi', [servicePath]))]);
  const boom = Boom.entityTooLarge();
  expectShape(
    PATCH,
    boom.isBoom && boom.output?.statusCode === 413 && typeof boom.output.payload === 'object',
    'a Boom error no longer has `isBoom` and `output.{statusCode, payload}`',
  );
  return hapi;
}

class OfflineFailureShape {
  constructor(serverless) {
    this.hooks = {
      'before:offline:start:init': () => {
        patchHapi(target(serverless.config.servicePath));
      },
    };
  }
}

module.exports = OfflineFailureShape;
module.exports.reshape = reshape;
module.exports.target = target;
module.exports.failureMessage = failureMessage;
