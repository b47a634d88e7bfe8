import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GET_PARAMS, TILE_PARAMS } from '#lib/geodatasets/read/getParams.ts';
import { DEFAULT_PACKAGE_ENV, packageService } from '../fixtures/packageService.ts';

const require = createRequire(import.meta.url);
const GatewayCachePlugin = require('../../serverless/plugins/gateway-cache.cjs');

/** The declared parameters of GET /api/geodatasets/get: the plugin must key on every one. */
const querystring = (names: readonly string[]) => names.map((p) => `method.request.querystring.${p}`);

let out: string;
let template: any;

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), 'sls-cache-'));
  // The cache is on for production stages only (`auto`); the default package is stage dev: asked for here.
  template = JSON.parse(
    await packageService(out, ['apiCache=true'], DEFAULT_PACKAGE_ENV, { templateOnly: true }),
  );
}, 600_000);

afterAll(() => rmSync(out, { recursive: true, force: true }));

/** Full path of an AWS::ApiGateway::Resource, rebuilt independently from PathPart/ParentId. */
function pathOf(resources: Record<string, any>, id: string): string {
  const r = resources[id];
  const parent = r.Properties.ParentId;
  return `${parent?.Ref ? pathOf(resources, parent.Ref) : ''}/${r.Properties.PathPart}`;
}

function method(path: string, verb = 'GET') {
  const resources = template.Resources as Record<string, any>;
  return Object.values(resources).find(
    (r) =>
      r.Type === 'AWS::ApiGateway::Method' &&
      r.Properties.HttpMethod === verb &&
      r.Properties.ResourceId?.Ref &&
      pathOf(resources, r.Properties.ResourceId.Ref) === path,
  );
}

describe('packaged template: REST API stage cache on the tile route', () => {
  it('enables a cache cluster on the stage with caching only on the GET tile methods', () => {
    const stages = Object.values(template.Resources as Record<string, any>).filter(
      (r) => r.Type === 'AWS::ApiGateway::Stage',
    );
    expect(stages).toHaveLength(1);
    const stage = stages[0].Properties;
    expect(stage.CacheClusterEnabled).toBe(true);
    expect(stage.CacheClusterSize).toBe('0.5');
    const settings = stage.MethodSettings as any[];
    // Stage throttling on every method, caching off except the read route.
    expect(settings).toContainEqual({
      ResourcePath: '/*',
      HttpMethod: '*',
      CachingEnabled: false,
      ThrottlingRateLimit: 100,
      ThrottlingBurstLimit: 200,
    });
    const enabled = settings.filter((s) => s.CachingEnabled);
    const ogcTile =
      '~1ogc~1collections~1{collectionId}~1tiles~1{tileMatrixSetId}~1{tileMatrix}~1{tileRow}~1{tileCol}';
    // `/API/...` is the front door's rewrite to these same paths: no settings of its own
    // (docs/deploying.md, "The front door").
    expect(enabled.map((s) => [s.ResourcePath, s.HttpMethod]).sort()).toEqual([
      ['/~1api~1geodatasets~1get', 'GET'],
      ['/~1api~1geodatasets~1get~1{layer}', 'GET'],
      [`/~1api${ogcTile}`, 'GET'],
    ]);
    for (const s of enabled) expect(s.CacheTtlInSeconds).toBe(300);
  });

  it('keys the cache by the layer path parameter and every query parameter that changes the tile', () => {
    const cases = ['api'].flatMap((prefix) => [
      [method(`/${prefix}/geodatasets/get/{layer}`), true] as const,
      [method(`/${prefix}/geodatasets/get`), false] as const,
    ]);
    for (const [m, pathParam] of cases) {
      expect(m).toBeDefined();
      const keys: string[] = m.Properties.Integration.CacheKeyParameters;
      // Exactly the declared query parameters (every tile-changing one among them), nothing undeclared.
      expect(keys.filter((k) => k.startsWith('method.request.querystring.')).sort()).toEqual(
        querystring(GET_PARAMS).sort(),
      );
      for (const p of querystring(TILE_PARAMS)) expect(keys).toContain(p);
      expect(keys.includes('method.request.path.layer')).toBe(pathParam);
      // A conditional request's 304 is cached only for the same If-None-Match (no poisoning).
      expect(keys).toContain('method.request.header.If-None-Match');
      // The MMGIS client's 200 failures (X-Requested-With) are never served to other callers.
      expect(keys).toContain('method.request.header.X-Requested-With');
      // Headers that change an answer (tests/api/gateway-cache-keys.test.ts checks it by running the handlers).
      for (const h of ['Authorization', 'Origin']) expect(keys).toContain(`method.request.header.${h}`);
      // Not Host: API Gateway routes the regional API by it; no client chooses it.
      expect(keys).not.toContain('method.request.header.Host');
      // Every cache key is a declared request parameter (CloudFormation refuses the method otherwise).
      for (const k of keys) expect(m.Properties.RequestParameters).toHaveProperty([k]);
      if (pathParam) expect(m.Properties.RequestParameters['method.request.path.layer']).toBe(true);
      expect(m.Properties.Integration.Type).toBe('AWS_PROXY');
    }
    // The POST form of the read and other routes stay uncached.
    expect(method('/api/geodatasets/get', 'POST')?.Properties.Integration.CacheKeyParameters).toBeUndefined();
    expect(method('/API/geodatasets/get')).toBeUndefined();
    expect(method('/api/users/logged_in')?.Properties.Integration.CacheKeyParameters).toBeUndefined();
  });

  it('keys the OGC API – Tiles tile route by its path parameters, v and f, and the same headers', () => {
    const tile = '/ogc/collections/{collectionId}/tiles/{tileMatrixSetId}/{tileMatrix}/{tileRow}/{tileCol}';
    const ns = new Set<string>();
    for (const prefix of ['api']) {
      const m = method(`/${prefix}${tile}`);
      expect(m, prefix).toBeDefined();
      const keys: string[] = m.Properties.Integration.CacheKeyParameters;
      expect([...keys].sort()).toEqual(
        [
          'method.request.path.collectionId',
          'method.request.path.tileMatrixSetId',
          'method.request.path.tileMatrix',
          'method.request.path.tileRow',
          'method.request.path.tileCol',
          'method.request.querystring.v',
          'method.request.querystring.f',
          'method.request.header.Authorization',
          'method.request.header.If-None-Match',
          'method.request.header.X-Requested-With',
          'method.request.header.Origin',
        ].sort(),
      );
      for (const k of keys) expect(m.Properties.RequestParameters).toHaveProperty([k]);
      for (const k of keys.filter((k) => k.startsWith('method.request.path.')))
        expect(m.Properties.RequestParameters[k]).toBe(true);
      expect(m.Properties.Integration.Type).toBe('AWS_PROXY');
      ns.add(JSON.stringify(m.Properties.Integration.CacheNamespace));
    }
    expect(ns.size).toBe(1);
    // The tileset metadata (its template carries the dataset version) is not cached by the gateway.
    expect(
      method('/api/ogc/collections/{collectionId}/tiles/{tileMatrixSetId}')?.Properties.Integration
        .CacheKeyParameters,
    ).toBeUndefined();
    expect(template.Resources.OgcTileLambdaFunction.Properties.Environment.Variables.TILE_MAX_AGE).toBe(
      '300',
    );
  });

  // The reservations of the expensive reads are parameters, none by default: tests/unit/package-stacks.test.ts.

  it('gives the read Lambda the same max-age as the gateway TTL', () => {
    const fn = template.Resources.GeodatasetsGetLambdaFunction;
    expect(fn.Properties.Environment.Variables.TILE_MAX_AGE).toBe('300');
  });

  it('declares GET /api/geodatasets/tilejson/{name}', () => {
    expect(method('/api/geodatasets/tilejson/{name}')).toBeDefined();
  });
});

describe('gateway-cache plugin on synthetic templates', () => {
  const fake = (
    resources: Record<string, any>,
    custom: Record<string, unknown> = {},
    env = {},
    stage = 'dev',
  ) => ({
    getProvider: () => ({ getStage: () => stage }),
    classes: { Error },
    service: {
      custom: { gatewayCache: custom },
      provider: { environment: env, compiledCloudFormationTemplate: { Resources: resources } },
    },
    cli: { log: () => {} },
  });
  const api = () => ({
    Api: {
      Type: 'AWS::ApiGateway::Resource',
      Properties: { ParentId: { 'Fn::GetAtt': ['R', 'Root'] }, PathPart: 'api' },
    },
    Gd: {
      Type: 'AWS::ApiGateway::Resource',
      Properties: { ParentId: { Ref: 'Api' }, PathPart: 'geodatasets' },
    },
    Get: { Type: 'AWS::ApiGateway::Resource', Properties: { ParentId: { Ref: 'Gd' }, PathPart: 'get' } },
    M: {
      Type: 'AWS::ApiGateway::Method',
      Properties: { HttpMethod: 'GET', ResourceId: { Ref: 'Get' }, Integration: { Type: 'AWS_PROXY' } },
    },
    Stage: { Type: 'AWS::ApiGateway::Stage', Properties: { StageName: 'dev', MethodSettings: [] } },
  });

  it('does nothing (and does not fail) when the read function is missing', () => {
    const resources = {
      Stage: { Type: 'AWS::ApiGateway::Stage', Properties: { StageName: 'dev' } },
    };
    const p = new GatewayCachePlugin(fake(resources));
    expect(() => p.hooks['before:package:finalize']()).not.toThrow();
    expect((resources.Stage.Properties as any).CacheClusterEnabled).toBeUndefined();
    const empty = new GatewayCachePlugin({ ...fake({}), service: { provider: {} } });
    expect(() => empty.hooks['before:package:finalize']()).not.toThrow();
  });

  it('writes onto an explicit Stage resource, honours ttl/size, adds auth headers under AUTH=local', () => {
    const resources: Record<string, any> = api();
    new GatewayCachePlugin(fake(resources, { ttl: 60, clusterSize: '1.6' }, { AUTH: 'local' })).hooks[
      'before:package:finalize'
    ]();
    expect(resources.Stage.Properties.CacheClusterEnabled).toBe(true);
    expect(resources.Stage.Properties.CacheClusterSize).toBe('1.6');
    expect(resources.Stage.Properties.MethodSettings).toContainEqual(
      expect.objectContaining({
        ResourcePath: '/~1api~1geodatasets~1get',
        CachingEnabled: true,
        CacheTtlInSeconds: 60,
      }),
    );
    const keys = resources.M.Properties.Integration.CacheKeyParameters;
    expect(keys).toContain('method.request.header.Authorization');
    expect(keys).toContain('method.request.header.Cookie');
  });

  it("keys on the tile endpoint's declaration: every declared query parameter, each tile-changing one included", () => {
    const resources: Record<string, any> = api();
    new GatewayCachePlugin(fake(resources)).hooks['before:package:finalize']();
    const keys: string[] = resources.M.Properties.Integration.CacheKeyParameters;
    const query = keys.filter((k) => k.startsWith('method.request.querystring.'));
    expect(GatewayCachePlugin.declaredQueryKeys()).toEqual(GET_PARAMS);
    expect(query).toEqual(querystring(GET_PARAMS));
    expect(query).toEqual(expect.arrayContaining(querystring(TILE_PARAMS)));
    // The ones that change a tile: its address, the TileJSON version, every read filter (CQL2's too) and _source.
    expect([...TILE_PARAMS].sort()).toEqual(
      [
        ...['type', 'x', 'y', 'z', 'v', '_source', '_source[]'],
        ...['minx', 'miny', 'maxx', 'maxy', 'starttime', 'endtime', 'startProp', 'endProp', 'format'],
        ...['group_id', 'id', 'spatialFilter', 'noDuplicates', 'filters'],
        ...['filter', 'filter-lang', 'filter-crs'],
      ].sort(),
    );
    // The GeoJSON-only ones share the route's cache key but never a tile's ETag.
    expect(GET_PARAMS.filter((p) => !(TILE_PARAMS as string[]).includes(p)).sort()).toEqual(
      ['after', 'layer', 'limit', 'offset', 'limited', 'stats', 'stats[]'].sort(),
    );
  });

  it('can be switched off', () => {
    const resources: Record<string, any> = api();
    new GatewayCachePlugin(fake(resources, { enabled: false })).hooks['before:package:finalize']();
    expect(resources.Stage.Properties.CacheClusterEnabled).toBeUndefined();
    expect(resources.M.Properties.Integration.CacheKeyParameters).toBeUndefined();
  });

  it('is on for production stages only when `auto` (the cache cluster is billed by the hour)', () => {
    const cached = (stage: string) => {
      const resources: Record<string, any> = api();
      new GatewayCachePlugin(fake(resources, { enabled: 'auto' }, {}, stage)).hooks[
        'before:package:finalize'
      ]();
      return resources.Stage.Properties.CacheClusterEnabled === true;
    };
    expect(cached('prod')).toBe(true);
    expect(cached('production')).toBe(true);
    expect(cached('dev')).toBe(false);
    expect(cached('staging')).toBe(false);
  });

  it('refuses a stage that is not one AWS::ApiGateway::Stage', () => {
    const resources: Record<string, any> = api();
    delete resources.Stage;
    resources.Dep = { Type: 'AWS::ApiGateway::Deployment', Properties: { StageName: 'dev' } };
    expect(() => new GatewayCachePlugin(fake(resources)).hooks['before:package:finalize']()).toThrow(
      /AWS::ApiGateway::Stage/,
    );
  });
});
