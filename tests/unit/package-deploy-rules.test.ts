import { describe, expect, it } from 'vitest';
import {
  bucketNameProblems,
  customResourceDependencyProblems,
  resolveText,
  s3PermissionProblems,
  stageProblems,
  updateProblems,
} from '../fixtures/awsDeployRules.ts';
import { flatResources, type Stack } from '../fixtures/cfnTemplates.ts';
import { DATA_API_PARAMS, DB_ENV, PRESETS, type Preset } from '../fixtures/packagePresets.ts';
import { packagedStacks } from '../fixtures/packageService.ts';

/**
 * What AWS refuses on a deploy that no quota or schema check sees (tests/fixtures/awsDeployRules.ts), for
 * every preset of docs/deploying.md, and a second deploy packaged after a change: a valid update of the
 * first. Each rule is also run on the shape that would have failed, so it is known to catch it.
 */

const DATA_API = DATA_API_PARAMS;
const presets: Record<string, Preset> = {
  ...PRESETS,
  // The front door off: nothing waits minutes for CloudFront, so resource order is all CloudFormation's.
  'data-api, no front door': { params: [...DATA_API, 'frontDoor=false'], env: DB_ENV, templateOnly: true },
};

/** The change of the second deploy: a setting, and a custom domain added. */
const CERTIFICATE = 'arn:aws:acm:us-east-1:123456789012:certificate/0a1b2c3d';
const SECOND_CHANGE = ['throttleRate=50', 'domainName=Maps.Example.org', `certificateArn=${CERTIFICATE}`];

const stacksOf = packagedStacks(presets, 'sls-deploy-rules-');
// The next deploy: packaged later (a new Deployment), with a setting changed.
const nextOf = packagedStacks(
  { second: { params: [...DATA_API, ...SECOND_CHANGE], env: DB_ENV, templateOnly: true } },
  'sls-deploy-rules-second-',
);

/** One stack of `resources`, as loadStacks gives it. */
const oneStack = (resources: Record<string, any>): Stack[] => [
  { name: 'root', file: '', template: { Resources: resources }, bytes: 0, parent: null },
];

describe.each(Object.keys(presets))('the %s package', (name) => {
  it('names, in the S3 permission of every notified function, the bucket the stack creates', () => {
    expect(s3PermissionProblems(stacksOf[name])).toEqual([]);
  });
  it('makes the REST API stage an AWS::ApiGateway::Stage; no Deployment names a stage', () => {
    expect(stageProblems(stacksOf[name])).toEqual([]);
  });
  it('names its buckets per account and region', () => {
    expect(bucketNameProblems(stacksOf[name])).toEqual([]);
  });
  it('makes every custom resource wait for the policies of its function', () => {
    expect(customResourceDependencyProblems(stacksOf[name])).toEqual([]);
  });
});

describe('the second deploy', () => {
  it('is a valid update of the first: kept resources stay, in their stacks, with nothing replaced', () => {
    expect(updateProblems(stacksOf['data-api'], nextOf.second)).toEqual([]);
  });
  it('moves the stage to a new Deployment, in place', () => {
    const stage = (s: Stack[]) => s[0].template.Resources.ApiGatewayStage;
    const first = stage(stacksOf['data-api']).Properties.DeploymentId.Ref;
    const next = stage(nextOf.second).Properties.DeploymentId.Ref;
    expect(next).not.toBe(first);
    expect(nextOf.second[0].template.Resources[next].Type).toBe('AWS::ApiGateway::Deployment');
  });
});

describe('each rule catches the shape that fails on AWS', () => {
  it('a permission that names the event key `uploads`, not the bucket', () => {
    const old = oneStack({
      S3BucketUploads: {
        Type: 'AWS::S3::Bucket',
        Properties: {
          BucketName: 'mmgis-prod-uploads',
          NotificationConfiguration: {
            LambdaConfigurations: [{ Function: { 'Fn::GetAtt': ['JobIngestUploadLambdaFunction', 'Arn'] } }],
          },
        },
      },
      JobIngestUploadLambdaPermissionUploadsS3: {
        Type: 'AWS::Lambda::Permission',
        Properties: {
          FunctionName: { 'Fn::GetAtt': ['JobIngestUploadLambdaFunction', 'Arn'] },
          Principal: 's3.amazonaws.com',
          SourceArn: { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':s3:::uploads']] },
        },
      },
    });
    expect(s3PermissionProblems(old)).toHaveLength(1);
    expect(bucketNameProblems(old)).toHaveLength(1);
  });

  it('a Deployment that makes its stage, and the next deploy that makes it again', () => {
    const deployment = (id: string) => ({
      [id]: {
        Type: 'AWS::ApiGateway::Deployment',
        Properties: {
          RestApiId: { Ref: 'ApiGatewayRestApi' },
          StageName: 'prod',
          StageDescription: { CacheClusterEnabled: true },
        },
      },
    });
    const first = oneStack(deployment('ApiGatewayDeployment1'));
    const next = oneStack(deployment('ApiGatewayDeployment2'));
    expect(stageProblems(first)).toContain('ApiGatewayDeployment1: a Deployment carries StageDescription');
    expect(updateProblems(first, next)).toContain(
      'ApiGatewayDeployment2 is new and makes stage prod, which the deployed stack already has',
    );
  });

  it('a migration that may run before its policy exists', () => {
    const stacks = oneStack({
      Role: { Type: 'AWS::IAM::Role', Properties: {} },
      DatabaseAccessPolicy: { Type: 'AWS::IAM::Policy', Properties: { Roles: [{ Ref: 'Role' }] } },
      Migrate: { Type: 'AWS::Lambda::Function', Properties: { Role: { 'Fn::GetAtt': ['Role', 'Arn'] } } },
      MigrateOnDeploy: {
        Type: 'Custom::Migrate',
        DependsOn: ['Migrate'],
        Properties: { ServiceToken: { 'Fn::GetAtt': ['Migrate', 'Arn'] } },
      },
    });
    expect(customResourceDependencyProblems(stacks)).toEqual([
      'MigrateOnDeploy (in root) runs Migrate without waiting for DatabaseAccessPolicy',
    ]);
  });

  it('an asynchronous-invoke configuration stored before its role may send to the destination', () => {
    const stacks = oneStack({
      Role: { Type: 'AWS::IAM::Role', Properties: {} },
      QueuePolicy: {
        Type: 'AWS::IAM::Policy',
        Properties: {
          Roles: [{ Ref: 'Role' }],
          PolicyDocument: { Statement: [{ Resource: { 'Fn::GetAtt': ['Queue', 'Arn'] } }] },
        },
      },
      Job: { Type: 'AWS::Lambda::Function', Properties: { Role: { 'Fn::GetAtt': ['Role', 'Arn'] } } },
      JobAsyncConfig: {
        Type: 'AWS::Lambda::EventInvokeConfig',
        Properties: {
          FunctionName: { Ref: 'Job' },
          DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': ['Queue', 'Arn'] } } },
        },
      },
    });
    expect(customResourceDependencyProblems(stacks)).toEqual([
      'JobAsyncConfig (in root) runs Job without waiting for QueuePolicy',
    ]);
  });

  it('a bucket renamed, and a named log group moved to another stack', () => {
    const bucket = (name: string) => ({ Type: 'AWS::S3::Bucket', Properties: { BucketName: name } });
    const logs = { Type: 'AWS::Logs::LogGroup', Properties: { LogGroupName: '/aws/lambda/x' } };
    const before: Stack[] = oneStack({ B: bucket('a'), L: logs });
    const after: Stack[] = oneStack({ B: bucket('b') });
    after.push({
      name: '1NestedStack',
      file: '',
      template: { Resources: { L: logs } },
      bytes: 0,
      parent: after[0],
    });
    expect(updateProblems(before, after)).toEqual([
      'B: BucketName changes ("a" → "b"), which replaces a AWS::S3::Bucket',
      'L moves from stack root to 1NestedStack',
    ]);
  });
});

/** Every resource of a package's stacks by logical id. */
const all = (stacks: Stack[]): Record<string, any> => flatResources(stacks);
const byType = (stacks: Stack[], type: string) =>
  Object.entries(all(stacks)).filter(([, r]) => r.Type === type);

describe("the operator's first day (data-api preset)", () => {
  const stacks = () => stacksOf['data-api'];

  it('gives each function a role with only what its bundle calls; reads neither write S3 nor invoke', () => {
    const resources = all(stacks());
    const statementsOf = (fnId: string) => {
      const role = resources[fnId].Properties.Role['Fn::GetAtt'][0];
      return JSON.stringify(resources[role].Properties.Policies);
    };
    for (const read of [
      'GeodatasetsTileJsonLambdaFunction',
      'OgcTileLambdaFunction',
      'ConfigureMissionsLambdaFunction',
    ]) {
      expect(resources[read], read).toBeDefined();
      expect(statementsOf(read)).not.toMatch(/s3:PutObject|lambda:InvokeFunction|ManageConnections/);
    }
    expect(statementsOf('JobIngestUploadLambdaFunction')).toMatch(/s3:GetObject/);
    const roles = byType(stacks(), 'AWS::IAM::Role').filter(([id]) => id.startsWith('IamRoleLambda'));
    expect(roles.length).toBeGreaterThan(2);
    for (const [id, role] of roles) {
      expect(role.Properties.RoleName, id).toBeUndefined();
      const text = JSON.stringify(role.Properties.Policies);
      expect(text, id).not.toContain('execute-api:*:*:*');
      expect(text, id).not.toContain('arn:aws:');
    }
    // The database policy reaches every role.
    const attached = resources.DatabaseAccessPolicy.Properties.Roles.map((r: any) => r.Ref).sort();
    expect(attached).toEqual(roles.map(([id]) => id).sort());
  });

  it('traces, logs access, and alarms on 5xx, errors, throttles and failed jobs', () => {
    const resources = all(stacks());
    const stage = resources.ApiGatewayStage.Properties;
    expect(stage.TracingEnabled).toBe(true);
    expect(stage.AccessLogSetting.DestinationArn).toEqual({
      'Fn::GetAtt': ['ApiGatewayAccessLogGroup', 'Arn'],
    });
    for (const [id, fn] of byType(stacks(), 'AWS::Lambda::Function'))
      expect(fn.Properties.TracingConfig, id).toEqual({ Mode: 'Active' });
    const alarms = byType(stacks(), 'AWS::CloudWatch::Alarm').map(([, a]) => a.Properties.MetricName);
    expect(alarms.sort()).toEqual(['5XXError', 'ApproximateNumberOfMessagesVisible', 'Errors', 'Throttles']);
    const jobs = byType(stacks(), 'AWS::Lambda::Function').filter(
      ([, f]) =>
        f.Properties.Handler.startsWith('dist/functions/jobs/') && !f.Properties.Handler.includes('migrate'),
    );
    const configs = byType(stacks(), 'AWS::Lambda::EventInvokeConfig').map(
      ([, c]) => c.Properties.FunctionName.Ref,
    );
    expect(configs.sort()).toEqual(jobs.map(([id]) => id).sort());
  });

  it('has no cache cluster on a non-production stage (auto), the runtime past 2027, compression on', () => {
    const resources = all(stacks());
    expect(resources.ApiGatewayStage.Properties.CacheClusterEnabled).toBeUndefined();
    expect(resources.ApiGatewayRestApi.Properties.MinimumCompressionSize).toBe(1024);
  });

  it('closes execute-api to all but CloudFront, and rate-limits each address at CloudFront', () => {
    const resources = all(stacks());
    const methods = byType(stacks(), 'AWS::ApiGateway::Method');
    expect(methods.length).toBeGreaterThan(100);
    for (const [id, m] of methods) expect(m.Properties.ApiKeyRequired, id).toBe(true);
    const config = resources.FrontDoorDistribution.Properties.DistributionConfig;
    const rest = config.Origins.find((o: any) => o.Id === 'RestApi');
    expect(rest.OriginCustomHeaders).toHaveLength(1);
    const header = rest.OriginCustomHeaders[0];
    expect(header.HeaderName).toBe('x-api-key');
    // The value is never in the template: the same Secrets Manager dynamic reference on both sides.
    expect(resolveText(header.HeaderValue)).toBe(
      '{{resolve:secretsmanager:<FrontDoorOriginSecret>:SecretString}}',
    );
    expect(resolveText(resources.FrontDoorApiKey.Properties.Value)).toBe(resolveText(header.HeaderValue));
    expect(config.WebACLId).toEqual({ 'Fn::GetAtt': ['FrontDoorWebAcl', 'Arn'] });
    const rule = resources.FrontDoorWebAcl.Properties.Rules[0];
    expect(rule.Statement.RateBasedStatement).toMatchObject({ AggregateKeyType: 'IP', Limit: 3000 });
    expect(rule.Action.Block.CustomResponse.ResponseCode).toBe(429);
  });

  it('serves a custom domain with its certificate, and names it in every link', () => {
    const resources = all(nextOf.second);
    const config = resources.FrontDoorDistribution.Properties.DistributionConfig;
    expect(config.Aliases).toEqual(['maps.example.org']);
    expect(config.ViewerCertificate).toMatchObject({
      AcmCertificateArn: CERTIFICATE,
      SslSupportMethod: 'sni-only',
    });
    for (const [id, fn] of byType(nextOf.second, 'AWS::Lambda::Function'))
      expect(fn.Properties.Environment.Variables.PUBLIC_URL, id).toEqual({
        'Fn::Join': ['', ['https://', 'maps.example.org']],
      });
  });
});
