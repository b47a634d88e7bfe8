'use strict';
// Local serverless plugin: makes `serverless offline` answer CORS the way the deployed service does
// (docs/auth.md, "CORS"). It changes nothing in the CloudFormation template.
//
// serverless-offline (13.x) adds its own CORS headers to every answer of a REST (`http`) route that has an
// Origin: it echoes the Origin with `Access-Control-Allow-Credentials: true`, keeping only the headers the
// Lambda set itself on top. None of its options turns that off (corsAllowOrigin and friends configure
// hapi's route CORS, which that hook then overrides). On AWS:
// - an answer carries exactly the CORS headers the Lambda sent (lib/http/middleware/cors.ts): `*` for
//   everyone, the Origin echoed with credentials only for CORS_ORIGINS;
// - a preflight OPTIONS is API Gateway's mock of `cors: true`: `Access-Control-Allow-Origin: *`, its default
//   Allow-Headers, the route's methods, no credentials; for an Origin listed in CORS_ORIGINS the origin
//   echoed with `Access-Control-Allow-Credentials: true` and `Vary: Origin` (serverless/plugins/preflight-credentials.cjs).
// This plugin wraps serverless-offline's onPreResponse hook so that local answers are exactly those.

const { dirname, join } = require('node:path');
const { allowedOrigins } = require('../../serverless/plugins/corsOrigins.cjs');
const { expectShape, expectSource, requireFrom, resolveFrom } = require('../patches/drift.cjs');

const PATCH = 'offline/cors';

const ALLOW_HEADERS = 'Content-Type,X-Amz-Date,Authorization,X-Api-Key,X-Amz-Security-Token,X-Amz-User-Agent';
const CORS_HEADERS = [
  'access-control-allow-origin',
  'access-control-allow-credentials',
  'access-control-expose-headers',
  'access-control-allow-methods',
  'access-control-allow-headers',
  'access-control-max-age',
];
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'];

function headersOf(request) {
  const res = request.response;
  if (!res) return undefined;
  return res.isBoom ? res.output.headers : res.headers;
}

/**
 * The methods API Gateway's preflight mock names for `path`: those of the most specific resource that
 * matches it (a route of its own wins over the `{proxy+}` catch-all), OPTIONS first.
 */
function methodsOf(server, path, requested) {
  const matches = [];
  for (const m of METHODS) {
    const route = server.match(m.toLowerCase(), path);
    if (route) matches.push({ m, path: route.path });
  }
  if (!matches.length) return null;
  const specific = matches.filter((x) => !x.path.includes('*}'));
  const pool = specific.length ? specific : matches;
  const chosen = (pool.find((x) => x.m === String(requested).toUpperCase()) ?? pool[0]).path;
  return ['OPTIONS', ...pool.filter((x) => x.path === chosen).map((x) => x.m)].join(',');
}

/** The headers as API Gateway's preflight mock sends them (`preflight` holds the methods and the origin). */
function preflightHeaders(headers, preflight) {
  for (const h of CORS_HEADERS) delete headers[h];
  headers['access-control-allow-origin'] = '*';
  headers['access-control-allow-headers'] = ALLOW_HEADERS;
  headers['access-control-allow-methods'] = preflight.methods;
  if (preflight.credentials) {
    headers['access-control-allow-origin'] = preflight.origin;
    headers['access-control-allow-credentials'] = 'true';
    headers.vary = 'Origin';
  }
}

const isPreflight = (request) =>
  request.method === 'options' &&
  !!request.headers.origin &&
  !!request.headers['access-control-request-method'];

/** onRequest: answers a preflight before any route (or the catch-all function) runs. */
function preflight(request, h, origins) {
  if (!isPreflight(request)) return h.continue;
  const methods = methodsOf(request.server, request.path, request.headers['access-control-request-method']);
  if (!methods) return h.continue;
  const { origin } = request.headers;
  const answer = { methods, origin, credentials: origins.includes(origin) };
  const res = h.response().code(200).type('application/json');
  preflightHeaders(res.headers, answer);
  request.app.awsPreflight = answer;
  return res.takeover();
}

/** Wraps serverless-offline's onPreResponse: afterwards only the Lambda's own CORS headers remain. */
function wrap(onPreResponse) {
  return function awsCors(request, h) {
    const headers = headersOf(request);
    if (!headers || !request.headers.origin) return onPreResponse.call(this, request, h);
    const fromLambda = {};
    for (const k of CORS_HEADERS) if (headers[k] !== undefined) fromLambda[k] = headers[k];
    const out = onPreResponse.call(this, request, h);
    if (request.app.awsPreflight) preflightHeaders(headers, request.app.awsPreflight);
    else {
      for (const k of CORS_HEADERS) delete headers[k];
      Object.assign(headers, fromLambda);
    }
    return out;
  };
}

/**
 * The prototype of hapi's server as serverless-offline uses it, with what this patch wraps and calls; throws a
 * PatchDriftError when hapi or serverless-offline moved (local/patches/drift.cjs).
 */
function target(servicePath) {
  const hapi = requireFrom(PATCH, '@hapi/hapi', [servicePath]);
  const proto = Object.getPrototypeOf(hapi.server());
  for (const m of ['ext', 'route', 'match'])
    expectShape(PATCH, typeof proto[m] === 'function', `hapi's server has no ${m}()`);
  // serverless-offline's own CORS headers come from an onPreResponse extension of its HTTP server.
  const src = dirname(resolveFrom(PATCH, 'serverless-offline', [servicePath]));
  expectSource(PATCH, join(src, 'events', 'http', 'HttpServer.js'), ['ext("onPreResponse"']);
  return proto;
}

class OfflineCors {
  constructor(serverless) {
    this.hooks = {
      'before:offline:start:init': () => this.patch(serverless),
    };
  }

  patch(serverless) {
    const proto = target(serverless.config.servicePath);
    const origins = allowedOrigins(serverless.service.provider?.environment?.CORS_ORIGINS);
    if (proto.ext.awsCors) return;
    const { ext, route } = proto;
    proto.ext = function (events, method, options) {
      if (events !== 'onPreResponse' || typeof method !== 'function')
        return ext.call(this, events, method, options);
      ext.call(this, 'onRequest', (request, h) => preflight(request, h, origins));
      return ext.call(this, events, wrap(method), options);
    };
    proto.ext.awsCors = true;
    // hapi's own route CORS would echo the Origin (or drop the Lambda's `*` when there is none).
    const noHapiCors = (c) => (c?.options?.cors ? { ...c, options: { ...c.options, cors: false } } : c);
    proto.route = function (config) {
      return route.call(this, Array.isArray(config) ? config.map(noHapiCors) : noHapiCors(config));
    };
  }
}

module.exports = OfflineCors;
module.exports.target = target;
