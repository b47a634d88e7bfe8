'use strict';
// Local serverless plugin: serverless-offline's Lambda timeout, with its timer cleared when the handler
// answers (docs/connections.md, "One process"). It changes nothing in the CloudFormation template or the
// deployed package.
//
// serverless-offline (13.x and 14.x) races every invocation against `setTimeout(timeout)` from
// `timers/promises` and never clears that timer. Until it fires, the pending timer holds the race, and the
// race holds the handler's answer: every answer's body stays in memory for the function's timeout (29 s)
// after it was sent. Under the load bench the service's live heap after a full collection grew to 574 MB
// (RSS 0.9-1.0 GB); with the timer gone it stayed at 113-137 MB.
//
// This plugin races each run of serverless-offline's `HandlerRunner` against a timer of the function's own
// timeout (its `timeout`, else the provider's, else serverless-offline's 6 s) that is cleared as soon as the
// handler settles, and fails a run that outlasts it with serverless-offline's own `LambdaTimeoutError`
// ("[504] - Lambda timeout."), which it answers 504 as before. Only once that is in place does it set
// serverless-offline's `noTimeout`, which drops the leaking timer. With `--noTimeout` the plugin does nothing;
// if the files are not where this version keeps them, or no longer look as they did, serverless-offline
// does not start (local/patches/drift.cjs).

const { dirname, join } = require('node:path');
const { pathToFileURL } = require('node:url');
const { expectShape, expectSource, PatchDriftError, resolveFrom } = require('../patches/drift.cjs');

const PATCH = 'offline/lambda-timeout';

/** serverless-offline's default Lambda timeout, in seconds (its config/constants.js). */
const DEFAULT_TIMEOUT_S = 6;

/** serverless-offline's `HandlerRunner` class and `LambdaTimeoutError`, or undefined when not found. */
async function offlineRunner(servicePath) {
  try {
    // The package's CommonJS entry point is src/index.cjs; the ES modules are under the same src folder,
    // and importing them by URL yields the very modules serverless-offline imports.
    const src = dirname(require.resolve('serverless-offline', { paths: [servicePath] }));
    const url = (...parts) => pathToFileURL(join(src, ...parts)).href;
    const runner = await import(url('lambda', 'handler-runner', 'HandlerRunner.js'));
    const errors = await import(url('errors', 'index.js'));
    return { HandlerRunner: runner.default, LambdaTimeoutError: errors.LambdaTimeoutError };
  } catch {
    return undefined;
  }
}

/**
 * Makes `HandlerRunner.prototype.run` fail with `new TimeoutError('[504] - Lambda timeout.')` once a run
 * outlasts `timeoutMs(context)`, clearing the timer when the run settles; returns whether it did.
 */
function clearedTimeouts(HandlerRunner, TimeoutError, timeoutMs) {
  const proto = HandlerRunner?.prototype;
  if (!proto || typeof proto.run !== 'function' || typeof TimeoutError !== 'function') return false;
  if (proto.run.clearsItsTimer) return true;
  const run = proto.run;
  const wrapper = function (event, context) {
    let timer;
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new TimeoutError('[504] - Lambda timeout.')), timeoutMs(context));
    });
    return Promise.race([run.call(this, event, context), timeout]).finally(() => clearTimeout(timer));
  };
  wrapper.clearsItsTimer = true;
  proto.run = wrapper;
  return true;
}

/** Milliseconds each function may run, by its deployed name (the `functionName` of its Lambda context). */
function timeoutsByName(service) {
  const fallback = (service.provider?.timeout ?? DEFAULT_TIMEOUT_S) * 1000;
  const byName = new Map();
  for (const key of service.getAllFunctions?.() ?? []) {
    const fn = service.getFunction(key);
    if (fn?.name) byName.set(fn.name, (fn.timeout ?? service.provider?.timeout ?? DEFAULT_TIMEOUT_S) * 1000);
  }
  return (context) => byName.get(context?.functionName) ?? fallback;
}

/**
 * serverless-offline's `HandlerRunner` and `LambdaTimeoutError`, checked for what this patch wraps, and its
 * `noTimeout` option still dropping its own timer; throws a PatchDriftError.
 */
async function target(servicePath) {
  const found = await offlineRunner(servicePath);
  if (!found)
    throw new PatchDriftError(PATCH, "serverless-offline's HandlerRunner.js or errors/index.js is not found");
  expectShape(PATCH, typeof found.HandlerRunner?.prototype?.run === 'function', 'HandlerRunner has no run()');
  expectShape(
    PATCH,
    typeof found.LambdaTimeoutError === 'function',
    'errors/index.js exports no LambdaTimeoutError',
  );
  const src = dirname(resolveFrom(PATCH, 'serverless-offline', [servicePath]));
  expectSource(PATCH, join(src, 'lambda', 'LambdaFunction.js'), [
    'this.#noTimeout = options.noTimeout',
    '...(this.#noTimeout ? [] : [this.#timeoutAndTerminate()])',
  ]);
  return found;
}

class OfflineLambdaTimeout {
  constructor(serverless, options = {}) {
    this.hooks = {
      // Before serverless-offline's own `offline:start:init`, which reads its options and builds the runners.
      'before:offline:start:init': async () => {
        if (options.noTimeout) return;
        const found = await target(serverless.config.servicePath);
        clearedTimeouts(found.HandlerRunner, found.LambdaTimeoutError, timeoutsByName(serverless.service));
        serverless.service.custom ??= {};
        serverless.service.custom['serverless-offline'] ??= {};
        serverless.service.custom['serverless-offline'].noTimeout = true;
      },
    };
  }
}

module.exports = OfflineLambdaTimeout;
module.exports.clearedTimeouts = clearedTimeouts;
module.exports.offlineRunner = offlineRunner;
module.exports.timeoutsByName = timeoutsByName;
module.exports.target = target;
