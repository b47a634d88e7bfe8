import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLUSTER, DATA_API_PARAMS, PROXY_PARAMS, SECRET } from '../fixtures/packagePresets.ts';
import { DEFAULT_PACKAGE_ENV, packageService } from '../fixtures/packageService.ts';

/**
 * The two deployments of docs/deploying.md, packaged with `--param` as the README says: the Data API mode
 * and the RDS Proxy / direct mode. Each template must hold its IAM statements, environment and network,
 * the stage throttle and the migration custom resource, and no secret value.
 * The local preset (no `--param`) is the package tests/unit/package.test.ts reads: one build per preset.
 * The two presets are packaged as templates only (every function's code is the local preset's).
 */

const SECRET_VALUE = 'super-secret-password-never-in-templates';

const modes = { 'data-api': DATA_API_PARAMS, proxy: PROXY_PARAMS };

const dir = mkdtempSync(join(tmpdir(), 'sls-db-modes-'));
const templates: Record<string, any> = {};
let local: any;

beforeAll(async () => {
  for (const [mode, params] of Object.entries(modes)) {
    // A password in the environment of whoever deploys must not end up in the template.
    // The template alone: each function's code is the default package's, which package.test.ts checks.
    const text = await packageService(
      join(dir, mode),
      params,
      { AUTH: 'local', PGPASSWORD: SECRET_VALUE, DATABASE_URL: '', DB_DRIVER: '' },
      { templateOnly: true },
    );
    expect(text).not.toContain(SECRET_VALUE);
    templates[mode] = JSON.parse(text);
  }
  local = JSON.parse(await packageService(join(dir, 'local'), [], DEFAULT_PACKAGE_ENV));
}, 600_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const lambdas = (t: any) =>
  Object.values(t.Resources as Record<string, any>).filter((r) => r.Type === 'AWS::Lambda::Function');
const policy = (t: any) => t.Resources.DatabaseAccessPolicy.Properties.PolicyDocument.Statement;

describe('deployment templates', () => {
  it('each preset sets DB_PREPARE: false behind RDS Proxy (pinning), true by default locally', () => {
    const prepare = (t: any) =>
      new Set(lambdas(t).map((fn) => fn.Properties.Environment.Variables.DB_PREPARE));
    expect(prepare(templates.proxy)).toEqual(new Set(['false']));
    expect(prepare(templates['data-api'])).toEqual(new Set(['false']));
    expect(prepare(local)).toEqual(new Set(['true']));
    expect(lambdas(local).length).toBe(lambdas(templates.proxy).length);
  });

  it('data-api: rds-data on the cluster, GetSecretValue on the secret, the driver env, no VPC', () => {
    const t = templates['data-api'];
    const statements = policy(t);
    expect(statements).toContainEqual(
      expect.objectContaining({
        Effect: 'Allow',
        Action: expect.arrayContaining([
          'rds-data:ExecuteStatement',
          'rds-data:BeginTransaction',
          'rds-data:CommitTransaction',
          'rds-data:RollbackTransaction',
        ]),
        Resource: CLUSTER,
      }),
    );
    expect(statements).toContainEqual({
      Effect: 'Allow',
      Action: 'secretsmanager:GetSecretValue',
      Resource: SECRET,
    });
    for (const fn of lambdas(t)) {
      const env = fn.Properties.Environment.Variables;
      expect(env).toMatchObject({
        DB_DRIVER: 'data-api',
        DB_CLUSTER_ARN: CLUSTER,
        DB_SECRET_ARN: SECRET,
        DB_NAME: 'mmgis',
      });
      expect(env.DATABASE_URL).toBe('');
      expect(fn.Properties.VpcConfig).toBeUndefined();
    }
  });

  it('proxy: the password secret only by ARN, TLS against the RDS CA bundle, the VPC from parameters', () => {
    const t = templates.proxy;
    expect(policy(t)).toEqual([
      { Effect: 'Allow', Action: 'secretsmanager:GetSecretValue', Resource: SECRET },
    ]);
    for (const fn of lambdas(t)) {
      const env = fn.Properties.Environment.Variables;
      expect(env).toMatchObject({
        DB_DRIVER: 'postgres',
        DB_URL_SECRET_ARN: SECRET,
        DB_HOST: 'mmgis.proxy-abc.us-east-1.rds.amazonaws.com',
        DB_USER: 'mmgis',
        DB_NAME: 'mmgis',
        DB_CA_FILE: '/var/runtime/ca-cert.pem',
        DATABASE_URL: '',
      });
      // Comma-separated parameters, split by CloudFormation at deploy time.
      expect(fn.Properties.VpcConfig).toEqual({
        SubnetIds: { 'Fn::Split': [',', 'subnet-1,subnet-2'] },
        SecurityGroupIds: { 'Fn::Split': [',', 'sg-1'] },
      });
    }
  });

  it('both: stage throttling, no reserved concurrency by default, migrations run by a custom resource per deploy', () => {
    for (const t of Object.values(templates)) {
      const stage = Object.values(t.Resources as Record<string, any>).find(
        (r) => r.Type === 'AWS::ApiGateway::Stage',
      );
      expect(stage.Properties.MethodSettings).toContainEqual(
        expect.objectContaining({
          ResourcePath: '/*',
          HttpMethod: '*',
          ThrottlingRateLimit: 100,
          ThrottlingBurstLimit: 200,
        }),
      );
      const jobs = lambdas(t).filter((f) => f.Properties.Handler.startsWith('dist/functions/jobs/'));
      expect(jobs.length).toBeGreaterThan(1);
      for (const fn of jobs) {
        // jobConcurrency reserves per job when set (tests/unit/package-stacks.test.ts); a new account's
        // quota can be 10, too low for any reservation (docs/deploying.md, "Concurrency").
        expect(fn.Properties.ReservedConcurrentExecutions).toBeUndefined();
      }
      // The gateway's own answers in the service's JSON shape, readable cross-origin; a function at its
      // reserved concurrency is a 503 with Retry-After, not a bare 500.
      const responses = Object.values(t.Resources as Record<string, any>).filter(
        (r) => r.Type === 'AWS::ApiGateway::GatewayResponse',
      );
      const byType = Object.fromEntries(responses.map((r) => [r.Properties.ResponseType, r.Properties]));
      expect(Object.keys(byType).sort()).toEqual([
        'DEFAULT_4XX',
        'DEFAULT_5XX',
        'INTEGRATION_FAILURE',
        'THROTTLED',
      ]);
      expect(byType.INTEGRATION_FAILURE.StatusCode).toBe('503');
      expect(byType.INTEGRATION_FAILURE.ResponseParameters['gatewayresponse.header.Retry-After']).toBe("'2'");
      expect(byType.THROTTLED.StatusCode).toBe('429');
      for (const { Properties: r } of responses) {
        expect(r.RestApiId).toEqual({ Ref: 'ApiGatewayRestApi' });
        expect(r.ResponseParameters['gatewayresponse.header.Access-Control-Allow-Origin']).toBe("'*'");
        const body = r.ResponseTemplates['application/json'].replace('$context.error.messageString', '"m"');
        expect(JSON.parse(body)).toMatchObject({ status: 'failure' });
      }
      const m = t.Resources.MigrateOnDeploy;
      expect(m.Type).toBe('Custom::Migrate');
      expect(m.Properties.ServiceToken['Fn::GetAtt'][0]).toBe('MigrateLambdaFunction');
      expect(m.Properties.Deployment).toMatch(/^\d{4}-/);
    }
  });
});
