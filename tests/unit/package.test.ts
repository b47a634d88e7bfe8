import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

function handlerFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? handlerFiles(p) : name.endsWith('.ts') ? [p] : [];
  });
}

let out: string;
let template: any;

beforeAll(() => {
  out = mkdtempSync(join(tmpdir(), 'sls-package-'));
  execFileSync(process.execPath, ['node_modules/serverless/bin/serverless.js', 'package', '--package', out], {
    env: {
      ...process.env,
      AWS_ACCESS_KEY_ID: 'x',
      AWS_SECRET_ACCESS_KEY: 'x',
      SLS_TELEMETRY_DISABLED: '1',
      SLS_NOTIFICATIONS_MODE: 'off',
    },
    stdio: 'pipe',
  });
  template = JSON.parse(readFileSync(join(out, 'cloudformation-template-update-stack.json'), 'utf8'));
}, 300_000);

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
    for (const z of zips) expect(statSync(join(out, z)).size).toBeLessThan(5 * 1024 * 1024);
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
});
