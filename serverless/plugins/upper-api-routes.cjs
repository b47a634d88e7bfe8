'use strict';
// Local serverless plugin: every `/api/...` route also answers as `/API/...` (docs/contract.md, section 1).
//
// The established MMGIS web client calls part of the API with an upper-case prefix (`API/draw/add`,
// `API/users/login`, ...): its server matched paths case-insensitively. API Gateway and serverless-offline
// match them exactly, so every route under `/api/` gets a twin under `/API/` on the same function: a
// request under `/API/` runs exactly what the same request under `/api/` runs. Other spellings
// (`/Api/...`) stay unknown routes.
//
// `serverless offline` only (hook before `offline:start:init`): each function's `http` event under `api/`
// gets a twin event under `API/` (the local router is case-sensitive, so both are served).
//
// Deployed, the REST API holds each route once, under `/api/`: the front door's CloudFront Function
// rewrites `/API/...` to `/api/...` before the request reaches it (serverless/plugins/front-door.cjs,
// docs/deploying.md). A second resource tree in the REST API cost 116 API Gateway resources, 197 methods
// and most of CloudFormation's 500 resources per stack.

const LOWER = 'api';
const UPPER = 'API';

/** An http event as `{ path, method, ...rest }`, whether written as an object or as `'GET api/x'`. */
function httpOf(event) {
  if (!event || typeof event !== 'object' || !event.http) return null;
  if (typeof event.http === 'string') {
    const [method, path] = event.http.trim().split(/\s+/);
    return { method, path };
  }
  return event.http;
}

/** `api/x/{y}` (with or without a leading slash) → `API/x/{y}`; null for paths outside `api/`. */
function upperPath(path) {
  const bare = String(path ?? '').replace(/^\/+/, '');
  if (bare !== LOWER && !bare.startsWith(`${LOWER}/`)) return null;
  return UPPER + bare.slice(LOWER.length);
}

/** Adds the `/API/` twin of every `/api/` http event of `functions` (in place); returns how many. */
function addUpperRoutes(functions) {
  let added = 0;
  for (const fn of Object.values(functions ?? {})) {
    if (!fn || !Array.isArray(fn.events)) continue;
    const existing = new Set(
      fn.events
        .map(httpOf)
        .filter(Boolean)
        .map((h) => `${String(h.method).toLowerCase()} ${String(h.path).replace(/^\/+/, '')}`),
    );
    const twins = [];
    for (const event of fn.events) {
      const http = httpOf(event);
      const path = http && upperPath(http.path);
      if (!path || existing.has(`${String(http.method).toLowerCase()} ${path}`)) continue;
      twins.push({ ...event, http: { ...http, path } });
    }
    fn.events.push(...twins);
    added += twins.length;
  }
  return added;
}

class UpperApiRoutes {
  constructor(serverless) {
    this.serverless = serverless;
    const offline = () => this.offline();
    this.hooks = {
      'before:offline:start': offline,
      'before:offline:start:init': offline,
    };
  }

  offline() {
    const n = addUpperRoutes(this.serverless.service.functions);
    if (n) this.serverless.cli?.log?.(`upper-api-routes: ${n} /API route(s) beside /api`);
  }
}

module.exports = UpperApiRoutes;
module.exports.addUpperRoutes = addUpperRoutes;
