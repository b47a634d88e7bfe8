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

  it('runs every function on nodejs22.x with its own small package', () => {
    for (const fn of lambdas()) {
      expect(fn.Properties.Runtime).toBe('nodejs22.x');
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

  it('routes every /api method under /API to the same function too, and no other spelling', () => {
    const resources = template.Resources as Record<string, any>;
    const pathOf = (id: string): string => {
      const r = resources[id];
      const parent = r.Properties.ParentId;
      return `${parent?.Ref ? pathOf(parent.Ref) : ''}/${r.Properties.PathPart}`;
    };
    const routes = new Map<string, unknown>();
    for (const r of Object.values(resources)) {
      if (r.Type !== 'AWS::ApiGateway::Method' || !r.Properties.ResourceId?.Ref) continue;
      routes.set(
        `${r.Properties.HttpMethod} ${pathOf(r.Properties.ResourceId.Ref)}`,
        r.Properties.Integration,
      );
    }
    const lower = [...routes.keys()].filter((k) => / \/api\//.test(k));
    expect(lower.length).toBeGreaterThan(80);
    for (const key of lower) {
      const twin = key.replace(' /api/', ' /API/');
      expect(routes.has(twin), twin).toBe(true);
      // OPTIONS is API Gateway's CORS mock on both; every other method invokes the same Lambda (each
      // cached tile route keeps a cache namespace of its own).
      const { CacheNamespace: _a, ...upper } = routes.get(twin) as Record<string, unknown>;
      const { CacheNamespace: _b, ...lowerIntegration } = routes.get(key) as Record<string, unknown>;
      expect(upper).toEqual(lowerIntegration);
    }
    expect([...routes.keys()].filter((k) => /^\S+ \/API\//.test(k))).toHaveLength(lower.length);
    expect([...routes.keys()].some((k) => / \/(?!api\/|API\/)[aA][pP][iI]\//.test(k))).toBe(false);
    // API Gateway's default quota: 300 resources per REST API.
    const apiResources = Object.values(resources).filter((r) => r.Type === 'AWS::ApiGateway::Resource');
    expect(apiResources.length).toBeLessThan(300);
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
