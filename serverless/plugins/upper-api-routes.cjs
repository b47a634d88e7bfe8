'use strict';
// Local serverless plugin: every `/api/...` route also answers as `/API/...` (docs/contract.md, section 1).
//
// The established MMGIS web client calls part of the API with an upper-case prefix (`API/draw/add`,
// `API/users/login`, ...): its server matched paths case-insensitively. API Gateway and serverless-offline
// match them exactly, so every route under `/api/` gets a twin under `/API/` on the same function: a
// request under `/API/` runs exactly what the same request under `/api/` runs. Other spellings
// (`/Api/...`) stay unknown routes.
//
// - `serverless offline` (hook before `offline:start:init`): each function's `http` event under `api/`
//   gets a twin event under `API/` (the local router is case-sensitive, so both are served).
// - `serverless package` (hook `before:package:finalize`, before the other plugins of that hook, so the
//   tile cache, CORS and deployment settings cover the twins): the compiled `/api` resource tree is copied
//   under `/API`, every method with it (same integration, same Lambda), and the deployment waits for the
//   copies too. (Twin events cannot be used there: serverless names resources after the path with
//   `_.capitalize`, so `API` and `api` would get the same logical ids.) No Lambda permission is needed:
//   serverless grants API Gateway one per function for every path (`.../*/*`).
//
// Cost: the REST API gets a second resource tree (API Gateway allows 300 resources per API by default;
// tests/unit/package.test.ts checks the count stays under it) and twice the methods.

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

/** Logical id of a copy: `ApiGatewayResourceApiX` → `ApiGatewayResourceUpperApiX` (same for methods). */
const copyId = (id) => id.replace(/^ApiGateway(Resource|Method)/, 'ApiGateway$1Upper');

/**
 * Copies the compiled `/api` resource tree of a CloudFormation template under `/API`, with every method
 * of it (in place); returns how many methods were copied. Does nothing when there is no `/api` resource
 * at the root or the copy exists already.
 */
function addUpperTemplate(resources) {
  const isRoot = (p) => p?.ParentId?.['Fn::GetAtt']?.[1] === 'RootResourceId';
  const rootId = Object.keys(resources).find((id) => {
    const r = resources[id];
    return r.Type === 'AWS::ApiGateway::Resource' && isRoot(r.Properties) && r.Properties.PathPart === LOWER;
  });
  if (!rootId || resources[copyId(rootId)]) return 0;
  // The /api resources, parents before children.
  const inTree = new Set([rootId]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [id, r] of Object.entries(resources)) {
      if (r.Type !== 'AWS::ApiGateway::Resource' || inTree.has(id)) continue;
      if (inTree.has(r.Properties?.ParentId?.Ref)) {
        inTree.add(id);
        grew = true;
      }
    }
  }
  const clone = (x) => JSON.parse(JSON.stringify(x));
  for (const id of inTree) {
    const copy = clone(resources[id]);
    if (id === rootId) copy.Properties.PathPart = UPPER;
    else copy.Properties.ParentId = { Ref: copyId(copy.Properties.ParentId.Ref) };
    resources[copyId(id)] = copy;
  }
  const methods = [];
  for (const [id, r] of Object.entries(resources)) {
    if (r.Type !== 'AWS::ApiGateway::Method' || !inTree.has(r.Properties?.ResourceId?.Ref)) continue;
    const copy = clone(r);
    copy.Properties.ResourceId = { Ref: copyId(r.Properties.ResourceId.Ref) };
    resources[copyId(id)] = copy;
    methods.push([id, copyId(id)]);
  }
  // The deployment is made after every method exists: the copies included.
  for (const r of Object.values(resources)) {
    if (r.Type !== 'AWS::ApiGateway::Deployment' || !Array.isArray(r.DependsOn)) continue;
    for (const [id, copy] of methods) if (r.DependsOn.includes(id)) r.DependsOn.push(copy);
  }
  return methods.length;
}

class UpperApiRoutes {
  constructor(serverless) {
    this.serverless = serverless;
    const offline = () => this.offline();
    this.hooks = {
      'before:offline:start': offline,
      'before:offline:start:init': offline,
      'before:package:finalize': () => this.package(),
    };
  }

  offline() {
    const n = addUpperRoutes(this.serverless.service.functions);
    if (n) this.serverless.cli?.log?.(`upper-api-routes: ${n} /API route(s) beside /api`);
  }

  package() {
    const template = this.serverless.service.provider.compiledCloudFormationTemplate;
    const n = addUpperTemplate(template?.Resources ?? {});
    this.serverless.cli?.log?.(`upper-api-routes: ${n} /API method(s) beside /api`);
  }
}

module.exports = UpperApiRoutes;
module.exports.addUpperRoutes = addUpperRoutes;
module.exports.addUpperTemplate = addUpperTemplate;
