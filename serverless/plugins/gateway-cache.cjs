'use strict';
const { join } = require('node:path');
const { setting } = require('../../scripts/settings.cjs');
// Local serverless plugin: writes the REST API stage cache for the geodataset read route into the
// CloudFormation template itself (docs/tiles.md, "Caching"), so `serverless package` output can be checked.
//
// - The stage (an AWS::ApiGateway::Stage, serverless/plugins/rest-api-stage.cjs) gets a cache cluster and MethodSettings: caching off for every method ('/*' '*'), on for
//   GET /api/geodatasets/get and GET /api/geodatasets/get/{layer}, the OGC API – Tiles tile route
//   GET /api/ogc/collections/{collectionId}/tiles/{tileMatrixSetId}/{tileMatrix}/{tileRow}/{tileCol}
//   (keyed by its path parameters, `v` and `f`). (`/API/...` reaches the same methods and the same cache:
//   the front door rewrites it to `/api/...` before the REST API, serverless/plugins/front-door.cjs.)
// - Those methods get CacheKeyParameters (and the matching RequestParameters): every query parameter
//   the route declares (lib/geodatasets/read/getParams.ts: tile address, filters, the TileJSON version
//   `v`, the GeoJSON paging and projection parameters, which share the route) and the `layer` path
//   parameter. Authorization is part of the key (a token is checked under any AUTH), and Cookie under
//   AUTH=local, so a cached answer never reaches another caller; Origin too (tests/api/gateway-cache-keys.test.ts).
// - `If-None-Match` is part of the key as well (docs/tiles.md, "Gateway cache"): a 304 cached for one
//   client's conditional request is only ever served to requests with the same If-None-Match, never to a
//   client without the cached body. (The 303 of an oversized answer is presigned for longer than the TTL.)
//   So is `X-Requested-With`: the MMGIS client's failures are 200s (docs/contract.md, section 1) and must
//   not be served to other callers.
// - Stage throttling on every method ('/*' '*'): custom.gatewayCache.throttle {rateLimit, burstLimit}
//   (default 100 requests/s, burst 200): the account-level default of 10,000/s is no protection.
//
// Options (custom.gatewayCache): enabled (true, false, or `auto`: on for the stages named in
// `productionStages` only, since the cache cluster is billed by the hour whether used or not; API Gateway
// pricing, "API caching"), ttl seconds (default TILE_MAX_AGE or 300),
// clusterSize (default '0.5' GB). If the read function is not in the service, the plugin does nothing.
// The read Lambda gets TILE_MAX_AGE = ttl (unless set otherwise) so Cache-Control and the gateway agree.

const CACHED_PATHS = ['/api/geodatasets/get', '/api/geodatasets/get/{layer}'];

// The OGC API – Tiles tile route (serverless/ogc-tiles.yml, docs/ogc-tiles.md): keyed by its path
// parameters, `v` (the dataset version its tileset's template carries) and `f`.
const OGC_TILE = '/ogc/collections/{collectionId}/tiles/{tileMatrixSetId}/{tileMatrix}/{tileRow}/{tileCol}';
const OGC_TILE_PATHS = [`/api${OGC_TILE}`];
const OGC_TILE_PATH_KEYS = ['collectionId', 'tileMatrixSetId', 'tileMatrix', 'tileRow', 'tileCol'];
const OGC_TILE_QUERY_KEYS = ['v', 'f'];
/** The tile functions: their Cache-Control max-age follows the gateway TTL. */
const TILE_FUNCTIONS = ['GeodatasetsGetLambdaFunction', 'OgcTileLambdaFunction'];

/**
 * Query parameters of GET /api/geodatasets/get that change its answer: every parameter its declaration
 * names (lib/geodatasets/read/getParams.ts, the one list the handler and the tile ETag read too), loaded
 * at package time by bundling that constants-only module with esbuild. Undeclared parameters (a jQuery
 * cache buster `_`) are not part of the key.
 */
function declaredQueryKeys() {
  const { buildSync } = require('esbuild');
  const entry = join(__dirname, '..', '..', 'lib', 'geodatasets', 'read', 'getParams.ts');
  const built = buildSync({
    entryPoints: [entry],
    bundle: true,
    format: 'cjs',
    platform: 'node',
    write: false,
    logLevel: 'silent',
  });
  const mod = { exports: {} };
  new Function('module', 'exports', 'require', built.outputFiles[0].text)(mod, mod.exports, require);
  return mod.exports.GET_PARAMS;
}

/** `/a/b/{c}` → `/~1a~1b~1{c}`: the ResourcePath form of MethodSettings (every slash escaped, then a leading one). */
function escapePath(path) {
  return `/${path.replace(/\//g, '~1')}`;
}

/** The full path of every AWS::ApiGateway::Resource, by logical id (walking ParentId up to the root). */
function resourcePaths(resources) {
  const out = {};
  const pathOf = (id, depth = 0) => {
    if (out[id] !== undefined) return out[id];
    const r = resources[id];
    if (r?.Type !== 'AWS::ApiGateway::Resource' || depth > 50) return undefined;
    const parent = r.Properties.ParentId;
    const parentPath = parent?.Ref ? pathOf(parent.Ref, depth + 1) : '';
    if (parentPath === undefined) return undefined;
    out[id] = `${parentPath}/${r.Properties.PathPart}`;
    return out[id];
  };
  for (const id of Object.keys(resources)) pathOf(id);
  return out;
}

class GatewayCachePlugin {
  constructor(serverless) {
    this.serverless = serverless;
    this.hooks = { 'before:package:finalize': () => this.apply() };
  }

  settings() {
    const service = this.serverless.service;
    const custom = service.custom?.gatewayCache || {};
    const ttl = Number(custom.ttl ?? setting('TILE_MAX_AGE'));
    const env = service.provider?.environment || {};
    const stage = this.serverless.getProvider('aws').getStage();
    const production = String(custom.productionStages ?? 'prod,production')
      .split(',')
      .map((x) => x.trim());
    const wanted = String(custom.enabled ?? 'true').toLowerCase();
    if (!['true', 'false', 'auto'].includes(wanted)) {
      throw new this.serverless.classes.Error(`--param="apiCache=${custom.enabled}": true, false or auto`);
    }
    return {
      enabled: wanted === 'auto' ? production.includes(stage) : wanted === 'true',
      ttl: Math.max(0, Math.min(3600, Number.isFinite(ttl) ? Math.floor(ttl) : 300)),
      clusterSize: String(custom.clusterSize ?? '0.5'),
      authLocal: env.AUTH === 'local',
      rateLimit: Number(custom.throttle?.rateLimit ?? 100),
      burstLimit: Math.floor(Number(custom.throttle?.burstLimit ?? 200)),
    };
  }

  apply() {
    const s = this.settings();
    if (!s.enabled) return;
    const template = this.serverless.service.provider.compiledCloudFormationTemplate;
    const resources = template?.Resources || {};
    const paths = resourcePaths(resources);
    const methods = Object.entries(resources).filter(
      ([, r]) =>
        r.Type === 'AWS::ApiGateway::Method' &&
        r.Properties.HttpMethod === 'GET' &&
        r.Properties.ResourceId?.Ref &&
        [...CACHED_PATHS, ...OGC_TILE_PATHS].includes(paths[r.Properties.ResourceId.Ref]),
    );
    if (methods.length === 0) return; // the read function is not part of this service

    const methodSettings = [
      {
        ResourcePath: '/*',
        HttpMethod: '*',
        CachingEnabled: false,
        ThrottlingRateLimit: s.rateLimit,
        ThrottlingBurstLimit: s.burstLimit,
      },
    ];
    const queryKeys = declaredQueryKeys();
    for (const [, method] of methods) {
      const path = paths[method.Properties.ResourceId.Ref];
      const ogc = OGC_TILE_PATHS.includes(path);
      const keys = (ogc ? OGC_TILE_QUERY_KEYS : queryKeys).map((k) => `method.request.querystring.${k}`);
      if (path.includes('{layer}')) keys.unshift('method.request.path.layer');
      if (ogc) keys.unshift(...OGC_TILE_PATH_KEYS.map((k) => `method.request.path.${k}`));
      // Every header that changes an answer (tests/api/gateway-cache-keys.test.ts): a token is checked under
      // any AUTH (an unknown one is a 401), the session cookie only under AUTH=local.
      keys.push('method.request.header.Authorization');
      if (s.authLocal) keys.push('method.request.header.Cookie');
      keys.push('method.request.header.If-None-Match');
      // A failure answers 200 to the MMGIS client's requests (docs/contract.md, section 1): never cached for others.
      keys.push('method.request.header.X-Requested-With');
      // A CORS_ORIGINS origin is echoed with credentials (lib/http/middleware/cors.ts). (Host is not a
      // key: API Gateway routes a regional API by it, so no client chooses the Host a stage sees.)
      keys.push('method.request.header.Origin');
      const requestParameters = { ...(method.Properties.RequestParameters || {}) };
      for (const k of keys)
        if (!(k in requestParameters)) requestParameters[k] = k.startsWith('method.request.path.');
      method.Properties.RequestParameters = requestParameters;
      method.Properties.Integration = {
        ...(method.Properties.Integration || {}),
        CacheKeyParameters: keys,
        CacheNamespace: { Ref: method.Properties.ResourceId.Ref },
      };
      methodSettings.push({
        ResourcePath: escapePath(path),
        HttpMethod: 'GET',
        CachingEnabled: true,
        CacheTtlInSeconds: s.ttl,
        CacheDataEncrypted: true,
      });
    }

    // The Lambdas' Cache-Control max-age follows the gateway TTL unless TILE_MAX_AGE is set for them.
    for (const name of TILE_FUNCTIONS) {
      const fn = resources[name];
      if (!fn?.Properties) continue;
      const vars = fn.Properties.Environment?.Variables ?? {};
      fn.Properties.Environment = { Variables: { TILE_MAX_AGE: String(s.ttl), ...vars } };
    }

    const stages = Object.values(resources).filter((r) => r.Type === 'AWS::ApiGateway::Stage');
    if (stages.length !== 1) {
      throw new this.serverless.classes.Error(
        'gateway-cache: the REST API stage must be one AWS::ApiGateway::Stage (serverless/plugins/rest-api-stage.cjs)',
      );
    }
    for (const st of stages) {
      Object.assign(st.Properties, {
        CacheClusterEnabled: true,
        CacheClusterSize: s.clusterSize,
        MethodSettings: [...(st.Properties.MethodSettings || []), ...methodSettings],
      });
    }
    this.serverless.cli.log(
      `gateway-cache: stage cache ${s.clusterSize} GB, ${s.ttl} s on ${methods.length} GET method(s)`,
    );
  }
}

module.exports = GatewayCachePlugin;
module.exports.declaredQueryKeys = declaredQueryKeys;
