import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PACKAGE_ENV, packageService } from '../fixtures/packageService.ts';

function handlerFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? handlerFiles(p) : name.endsWith('.ts') ? [p] : [];
  });
}

const ALLOWED = DEFAULT_PACKAGE_ENV.CORS_ORIGINS.split(',');
let out: string;
let template: any;

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), 'sls-package-'));
  template = JSON.parse(await packageService(out, [], DEFAULT_PACKAGE_ENV));
}, 600_000);

afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('serverless package (CloudFormation template)', () => {
  const lambdas = () =>
    Object.values(template.Resources as Record<string, any>).filter(
      (r) => r.Type === 'AWS::Lambda::Function',
    );

  it('has exactly one Lambda function per handler file in functions/', () => {
    const files = handlerFiles('functions').map((f) => relative('.', f).replace(/\.ts$/, ''));
    const handlers = lambdas().map((r) =>
      r.Properties.Handler.replace(/^dist\//, '').replace(/\.handler$/, ''),
    );
    expect([...handlers].sort()).toEqual([...files].sort());
  });

  it('runs every function on nodejs24.x with its own small package', () => {
    for (const fn of lambdas()) {
      expect(fn.Properties.Runtime).toBe('nodejs24.x');
    }
    const zips = readdirSync(out).filter((f) => f.endsWith('.zip'));
    expect(zips.length).toBe(lambdas().length);
    // utilsProj42wkt alone carries GDAL compiled to WebAssembly with PROJ's data (docs/utils.md): well
    // under Lambda's 50 MB zipped upload limit; every other function stays small.
    const budget = (z: string) => (z === 'utilsProj42wkt.zip' ? 25 : 5) * 1024 * 1024;
    for (const z of zips) expect(statSync(join(out, z)).size, z).toBeLessThan(budget(z));
  });

  it('routes every /api path through API Gateway REST methods', () => {
    const methods = Object.values(template.Resources as Record<string, any>).filter(
      (r) => r.Type === 'AWS::ApiGateway::Method' && r.Properties.HttpMethod !== 'OPTIONS',
    );
    // WebSocket route handlers ($connect/$disconnect/$default) are not REST methods.
    const wsRoutes = Object.values(template.Resources as Record<string, any>).filter(
      (r) => r.Type === 'AWS::ApiGatewayV2::Route',
    );
    // Job and schedule functions (functions/jobs/: migrate, async jobs) have no HTTP route either.
    const jobs = lambdas().filter((fn) => fn.Properties.Handler.startsWith('dist/functions/jobs/'));
    expect(methods.length).toBeGreaterThanOrEqual(lambdas().length - jobs.length - wsRoutes.length);
  });

  it("holds each /api route once: /API is the front door's rewrite, not a second tree (docs/deploying.md)", () => {
    const resources = template.Resources as Record<string, any>;
    const pathOf = (id: string): string => {
      const r = resources[id];
      const parent = r.Properties.ParentId;
      return `${parent?.Ref ? pathOf(parent.Ref) : ''}/${r.Properties.PathPart}`;
    };
    const routes = new Set<string>();
    for (const r of Object.values(resources)) {
      if (r.Type !== 'AWS::ApiGateway::Method' || !r.Properties.ResourceId?.Ref) continue;
      const key = `${r.Properties.HttpMethod} ${pathOf(r.Properties.ResourceId.Ref)}`;
      expect(routes.has(key), key).toBe(false);
      routes.add(key);
    }
    expect([...routes].filter((k) => / \/api\//.test(k)).length).toBeGreaterThan(80);
    expect([...routes].some((k) => / \/(?!api\/)[aA][pP][iI]\//.test(k))).toBe(false);
    // API Gateway's default quota: 300 resources per REST API.
    const apiResources = Object.values(resources).filter((r) => r.Type === 'AWS::ApiGateway::Resource');
    expect(apiResources.length).toBeLessThan(300);
  });

  it('puts the pages, /api, /API and the WebSocket behind one CloudFront host (docs/deploying.md)', () => {
    const resources = template.Resources as Record<string, any>;
    const config = resources.FrontDoorDistribution.Properties.DistributionConfig;
    const byPath = Object.fromEntries(config.CacheBehaviors.map((b: any) => [b.PathPattern, b]));
    // Beside these, /Missions/* and the MMGIS client's folders from S3 (tests/unit/package-mission-origins.test.ts).
    const s3 = new Set(['MissionData', 'MmgisSite']);
    const own = Object.keys(byPath).filter(
      (p) => !s3.has(byPath[p].TargetOriginId) && !p.startsWith('/Missions/'),
    );
    expect(own.sort()).toEqual(['/API/*', '/api/*', '/assets/*', '/ws', '/ws/*']);
    const origin = (id: string) => config.Origins.find((o: any) => o.Id === id);
    expect(origin(byPath['/api/*'].TargetOriginId).DomainName['Fn::Sub'][1]).toEqual({
      Api: { Ref: 'ApiGatewayRestApi' },
    });
    expect(origin(byPath['/ws'].TargetOriginId).DomainName['Fn::Sub'][1]).toEqual({
      Api: { Ref: 'WebsocketsApi' },
    });
    expect(config.DefaultCacheBehavior.TargetOriginId).toBe(byPath['/api/*'].TargetOriginId);
    expect(resources.ApiGatewayRestApi.Properties.EndpointConfiguration).toEqual({ Types: ['REGIONAL'] });
    // The API is not cached by CloudFront and gets every header, cookie and query string (the gateway's
    // cache key and the ETags stay the gateway's and the functions'); no recompression.
    for (const p of ['/api/*', '/API/*']) {
      expect(byPath[p].CachePolicyId, p).toBe('4135ea2d-6df8-44a3-9df3-4b5a84be39ad');
      expect(byPath[p].OriginRequestPolicyId, p).toBe('b689b0a8-53d0-40ab-baf2-68738e2966ac');
      expect(byPath[p].Compress, p).toBe(false);
      expect(byPath[p].AllowedMethods, p).toContain('POST');
    }
    const rewrite = resources.FrontDoorViewerRequest.Properties;
    expect(rewrite.FunctionConfig.Runtime).toBe('cloudfront-js-2.0');
    const arn = { 'Fn::GetAtt': ['FrontDoorViewerRequest', 'FunctionARN'] };
    for (const p of ['/API/*', '/ws', '/ws/*'])
      expect(byPath[p].FunctionAssociations, p).toEqual([{ EventType: 'viewer-request', FunctionARN: arn }]);
    expect(byPath['/api/*'].FunctionAssociations).toBeUndefined();
    // The function's code, run as CloudFront runs it: /API/… → /api/…, /ws… → /, the rest untouched.
    const handler = new Function(`${rewrite.FunctionCode}; return handler;`)();
    const uri = (u: string) => handler({ request: { uri: u } }).uri;
    expect(uri('/API/configure/missions')).toBe('/api/configure/missions');
    expect(uri('/API')).toBe('/api');
    expect(uri('/api/draw/add')).toBe('/api/draw/add');
    expect(uri('/APIS/x')).toBe('/APIS/x');
    expect(uri('/ws/')).toBe('/');
    expect(uri('/ws')).toBe('/');
    expect(uri('/configure')).toBe('/configure');
    expect(template.Outputs.PublicUrl.Value).toEqual({
      'Fn::Join': ['', ['https://', { 'Fn::GetAtt': ['FrontDoorDistribution', 'DomainName'] }]],
    });
    // Every function accepts the public origin for credentials (docs/auth.md); the pages open /ws/ there.
    for (const fn of lambdas()) {
      const cors = fn.Properties.Environment.Variables.CORS_ORIGINS;
      expect(JSON.stringify(cors)).toContain('FrontDoorDistribution');
    }
    expect(
      resources.WebServeLambdaFunction.Properties.Environment.Variables.WEBSOCKET_URL['Fn::Join'][1][2],
    ).toBe('/ws/');
  });

  it('throttles the WebSocket stage (docs/live-updates.md, "Limits")', () => {
    const stages = Object.values(template.Resources as Record<string, any>).filter(
      (r) => r.Type === 'AWS::ApiGatewayV2::Stage',
    );
    expect(stages).toHaveLength(1);
    expect(stages[0].Properties.DefaultRouteSettings).toMatchObject({
      ThrottlingRateLimit: 50,
      ThrottlingBurstLimit: 100,
    });
  });

  it('answers preflights from CORS_ORIGINS with credentials, everyone else with `*` (docs/auth.md)', () => {
    const options = Object.values(template.Resources as Record<string, any>).filter(
      (r) => r.Type === 'AWS::ApiGateway::Method' && r.Properties.HttpMethod === 'OPTIONS',
    );
    expect(options.length).toBeGreaterThan(10);
    for (const m of options) {
      const [response] = m.Properties.Integration.IntegrationResponses;
      expect(response.ResponseParameters['method.response.header.Access-Control-Allow-Origin']).toBe("'*'");
      const vtl: string = response.ResponseTemplates['application/json'];
      for (const o of ALLOWED) expect(vtl).toContain(`$origin == "${o}"`);
      expect(vtl).toContain('$context.responseOverride.header.Access-Control-Allow-Credentials = "true"');
      expect(vtl).toContain('$context.responseOverride.header.Access-Control-Allow-Origin = $origin');
      const declared = m.Properties.MethodResponses[0].ResponseParameters;
      expect(declared['method.response.header.Access-Control-Allow-Credentials']).toBe(true);
      expect(declared['method.response.header.Vary']).toBe(true);
    }
  });
});
