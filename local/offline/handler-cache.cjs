'use strict';
// Local serverless plugin: serverless-offline's in-process runner finds each function's handler once per
// process instead of once per request (docs/connections.md, "One process"). It changes nothing in the
// CloudFormation template or the deployed package.
//
// serverless-offline 13.x (in-process mode, which `npm start` uses) calls the Lambda runtime's
// `UserFunction.load(servicePath, handler)` on every invocation. Each call probes the file system for the
// handler's module (`existsSync` of the path without an extension, with `.js`, and of every `package.json`
// from the handler's folder up to the project's, whose text it reads and parses to learn the module type),
// then imports the module, which Node has cached since the first call. In a profile of the service
// answering a request without database work at 8 clients, that lookup was about an eighth of its CPU; a
// Lambda runtime loads the handler once, when the instance starts. (Worker-thread mode,
// OFFLINE_IN_PROCESS=false, runs its own runner and is left as it is.)
//
// The in-process runner imports `load` lazily, at the first invocation, from that CommonJS file. This plugin
// requires the same file first (Node's module cache then holds it) and replaces its `load` export with one
// that remembers each handler's function, per service path and handler string, so the runner's import
// finds the remembered one. A failed lookup (a handler missing, say mid-rebuild) is not remembered and is
// tried again on the next request. `npm start` restarts serverless-offline after a rebuild
// (local/start.mjs), so a new build is always looked up afresh. If the file is not where this version
// keeps it, or serverless-offline's runner no longer imports `load` from it, serverless-offline does not start
// (local/patches/drift.cjs).

const { dirname, join } = require('node:path');
const { expectShape, expectSource, PatchDriftError, resolveFrom } = require('../patches/drift.cjs');

const PATCH = 'offline/handler-cache';

const USER_FUNCTION = join(
  'lambda',
  'handler-runner',
  'in-process-runner',
  'aws-lambda-ric',
  'UserFunction.js',
);

function userFunctionModule(servicePath) {
  try {
    // The package's CommonJS entry point is src/index.cjs; the runtime file is under the same src folder.
    const main = require.resolve('serverless-offline', { paths: [servicePath] });
    return require(join(dirname(main), USER_FUNCTION));
  } catch {
    return undefined;
  }
}

/** Wraps `mod.load` so each (service path, handler) is looked up once; returns whether it did. */
function rememberHandlers(mod) {
  if (!mod || typeof mod.load !== 'function') return false;
  if (mod.load.remembersHandlers) return true;
  const lookUp = mod.load;
  const found = new Map();
  const load = (servicePath, handler) => {
    const key = `${servicePath}\0${handler}`;
    let pending = found.get(key);
    if (!pending) {
      pending = lookUp(servicePath, handler);
      found.set(key, pending);
      pending.catch(() => found.delete(key));
    }
    return pending;
  };
  load.remembersHandlers = true;
  mod.load = load;
  return true;
}

/** The runtime's UserFunction module as serverless-offline's runner imports it; throws a PatchDriftError. */
function target(servicePath) {
  const mod = userFunctionModule(servicePath);
  if (!mod) throw new PatchDriftError(PATCH, `serverless-offline's ${USER_FUNCTION} is not found`);
  expectShape(PATCH, typeof mod.load === 'function', `${USER_FUNCTION} exports no load()`);
  const src = dirname(resolveFrom(PATCH, 'serverless-offline', [servicePath]));
  const runner = join(src, 'lambda', 'handler-runner', 'in-process-runner', 'InProcessRunner.js');
  expectSource(PATCH, runner, ['import { load } from "./aws-lambda-ric/UserFunction.js"']);
  return mod;
}

class OfflineHandlerCache {
  constructor(serverless) {
    // Patched now; a drift stops `serverless offline` only, not `serverless package`.
    let drift = null;
    try {
      rememberHandlers(target(serverless.config.servicePath));
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

module.exports = OfflineHandlerCache;
module.exports.rememberHandlers = rememberHandlers;
module.exports.userFunctionModule = userFunctionModule;
module.exports.target = target;
