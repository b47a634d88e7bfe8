import { describe, expect, it } from 'vitest';
import {
  bucketPolicyProblems,
  keyGroupProblems,
  originAccessProblems,
  resolveText,
} from '../fixtures/awsDeployRules.ts';
import { flatResources, type Stack, validateStacks } from '../fixtures/cfnTemplates.ts';
import { DATA_API_PARAMS, DB_ENV, PRESETS, PROXY_PARAMS, type Preset } from '../fixtures/packagePresets.ts';
import { packagedStacks } from '../fixtures/packageService.ts';

/**
 * The front door's S3 origins (serverless/plugins/frontDoorOrigins.cjs; docs/mission-site.md, "Deployed"):
 * `/Missions/*` from the mission data bucket and the MMGIS client's static folders from the site bucket,
 * through an origin access control, in every preset that has the front door; under AUTH=local with the
 * cookie key, `/Missions/*` trusts the stack's key group. Each AWS rule is also run on the shape AWS refuses.
 */

const KEY_SECRET = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:mmgis-prod-mission-key-AbCdEf';
const KEY = `missionKeySecretArn=${KEY_SECRET}`;
const presets: Record<string, Preset & { signed: boolean; bucket: 'uploads' | 'own' | 'function' }> = {
  // AUTH=none: no signing, the bucket serves everyone.
  local: { ...PRESETS.local, signed: false, bucket: 'uploads' },
  'data-api, cookie key': {
    ...PRESETS['data-api'],
    params: [...DATA_API_PARAMS, KEY],
    signed: true,
    bucket: 'uploads',
  },
  'proxy, cookie key': { ...PRESETS.proxy, params: [...PROXY_PARAMS, KEY], signed: true, bucket: 'uploads' },
  // AUTH=local without the key: /Missions stays on the function; the site bucket is there.
  'data-api': { ...PRESETS['data-api'], signed: false, bucket: 'function' },
  'data-api, own data bucket': {
    params: [...DATA_API_PARAMS, KEY],
    env: { ...DB_ENV, MISSION_DATA_BUCKET: 'mars-missions-archive', MISSION_DATA_PREFIX: 'data/Missions' },
    templateOnly: true,
    signed: true,
    bucket: 'own',
  },
};

const stacksOf = packagedStacks(presets, 'sls-mission-origins-');

const SITE = [
  '/build/*',
  '/public/*',
  '/config/*',
  '/configure/build/*',
  '/configure/public/*',
  '/documentation/*',
  '/docs/helps/*',
  '/README.md',
];
const CACHING_OPTIMIZED = '658327ea-f89d-4fab-a63d-7e88639e58f6';
const DISTRIBUTION_ARN = 'arn:aws:cloudfront::123456789012:distribution/<FrontDoorDistribution>';

describe.each(Object.keys(presets))('the %s package', (name) => {
  const p = presets[name];
  const all = () => flatResources(stacksOf[name]);
  const config = () => all().FrontDoorDistribution.Properties.DistributionConfig;
  const behavior = (pattern: string) => config().CacheBehaviors.find((b: any) => b.PathPattern === pattern);
  const origin = (id: string) => config().Origins.find((o: any) => o.Id === id);

  it("matches CloudFormation's resource specification (the key group's variants too)", () => {
    expect(validateStacks(stacksOf[name])).toEqual([]);
  });

  it('passes the rules AWS applies to S3 origins, key groups and bucket policies', () => {
    expect(originAccessProblems(stacksOf[name])).toEqual([]);
    expect(keyGroupProblems(stacksOf[name])).toEqual([]);
    expect(bucketPolicyProblems(stacksOf[name])).toEqual([]);
  });

  it("serves the MMGIS client's static folders from the site bucket, cached, through the OAC", () => {
    for (const path of SITE)
      expect(behavior(path), path).toMatchObject({
        TargetOriginId: 'MmgisSite',
        CachePolicyId: CACHING_OPTIMIZED,
        AllowedMethods: ['GET', 'HEAD'],
      });
    expect(origin('MmgisSite')).toEqual({
      Id: 'MmgisSite',
      DomainName: { 'Fn::GetAtt': ['FrontDoorSiteBucket', 'RegionalDomainName'] },
      S3OriginConfig: { OriginAccessIdentity: '' },
      OriginAccessControlId: { 'Fn::GetAtt': ['FrontDoorOriginAccessControl', 'Id'] },
    });
    expect(all().FrontDoorOriginAccessControl.Properties.OriginAccessControlConfig).toMatchObject({
      OriginAccessControlOriginType: 's3',
      SigningBehavior: 'always',
      SigningProtocol: 'sigv4',
    });
    // The pages stay on the functions; the API's origin has no OAC.
    for (const path of ['/', '/configure-beta', '/configure']) expect(behavior(path)).toBeUndefined();
    expect(origin('RestApi').OriginAccessControlId).toBeUndefined();
    expect(all().FrontDoorSiteBucket.Properties.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    const [statement] = all().FrontDoorSiteBucketPolicy.Properties.PolicyDocument.Statement;
    expect(statement.Principal).toEqual({ Service: 'cloudfront.amazonaws.com' });
    expect(statement.Action).toBe('s3:GetObject');
    expect(resolveText(statement.Resource)).toBe('arn:aws:s3:::<FrontDoorSiteBucket>/*');
    expect(resolveText(statement.Condition.StringEquals['AWS:SourceArn'])).toBe(DISTRIBUTION_ARN);
  });

  it('serves /Missions/* from the mission data bucket (no Lambda per tile), _time_ paths from the function', () => {
    const patterns = config().CacheBehaviors.map((b: any) => b.PathPattern);
    if (p.bucket === 'function') {
      expect(patterns.filter((x: string) => x.startsWith('/Missions'))).toEqual([]);
      expect(origin('MissionData')).toBeUndefined();
      return;
    }
    // First match wins: the _time_ behaviour comes before the files'.
    expect(patterns.indexOf('/Missions/*_time_*')).toBeLessThan(patterns.indexOf('/Missions/*'));
    expect(behavior('/Missions/*_time_*').TargetOriginId).toBe('RestApi');
    const files = behavior('/Missions/*');
    expect(files).toMatchObject({ TargetOriginId: 'MissionData', AllowedMethods: ['GET', 'HEAD'] });
    const cache = all()[files.CachePolicyId.Ref].Properties.CachePolicyConfig;
    expect(cache.ParametersInCacheKeyAndForwardedToOrigin).toMatchObject({
      HeadersConfig: { HeaderBehavior: 'none' },
      CookiesConfig: { CookieBehavior: 'none' },
      QueryStringsConfig: { QueryStringBehavior: 'none' },
    });
    expect(cache.DefaultTTL).toBe(3600);
    const headers = all()[files.ResponseHeadersPolicyId.Ref].Properties.ResponseHeadersPolicyConfig;
    expect(headers.CustomHeadersConfig.Items[0]).toEqual({
      Header: 'Cache-Control',
      Value: `${p.signed ? 'private' : 'public'}, max-age=3600`,
      Override: true,
    });
    const o = origin('MissionData');
    expect(o.S3OriginConfig).toEqual({ OriginAccessIdentity: '' });
    expect(o.OriginAccessControlId).toEqual({ 'Fn::GetAtt': ['FrontDoorOriginAccessControl', 'Id'] });
    expect(o.CustomOriginConfig).toBeUndefined();
  });

  it('lets only this distribution read the mission files, under the prefix the function reads', () => {
    if (p.bucket === 'function') return;
    const fns = Object.entries<any>(all()).filter(([, r]) => r.Type === 'AWS::Lambda::Function');
    const o = origin('MissionData');
    if (p.bucket === 'uploads') {
      expect(o.DomainName).toEqual({ 'Fn::GetAtt': ['S3BucketUploads', 'RegionalDomainName'] });
      expect(o.OriginPath).toBeUndefined();
      for (const [id, fn] of fns) {
        expect(fn.Properties.Environment.Variables.MISSION_DATA_BUCKET, id).toEqual({
          Ref: 'S3BucketUploads',
        });
        expect(fn.Properties.Environment.Variables.MISSION_DATA_PREFIX, id).toBe('Missions');
      }
      const policy = all().FrontDoorMissionDataPolicy.Properties;
      expect(policy.Bucket).toEqual({ Ref: 'S3BucketUploads' });
      expect(policy.PolicyDocument.Statement).toHaveLength(1);
      const [s] = policy.PolicyDocument.Statement;
      expect(s).toMatchObject({
        Effect: 'Allow',
        Principal: { Service: 'cloudfront.amazonaws.com' },
        Action: 's3:GetObject',
      });
      // Only the mission files: not the uploads' incoming/ and responses/ keys.
      expect(resolveText(s.Resource)).toBe('arn:aws:s3:::<S3BucketUploads>/Missions/*');
      expect(resolveText(s.Condition.StringEquals['AWS:SourceArn'])).toBe(DISTRIBUTION_ARN);
      expect(all().S3BucketUploads.Properties.PublicAccessBlockConfiguration.BlockPublicPolicy).toBe(true);
    } else {
      expect(resolveText(o.DomainName)).toBe('mars-missions-archive.s3.us-east-1.amazonaws.com');
      expect(o.OriginPath).toBe('/data');
      expect(all().FrontDoorMissionDataPolicy).toBeUndefined();
      const out = JSON.parse(resolveText(stacksOf[name][0].template.Outputs.MissionDataBucketPolicy.Value));
      expect(out.Resource).toBe('arn:aws:s3:::mars-missions-archive/data/Missions/*');
      expect(out.Condition.StringEquals['AWS:SourceArn']).toBe(DISTRIBUTION_ARN);
      for (const [id, fn] of fns)
        expect(fn.Properties.Environment.Variables.MISSION_DATA_PREFIX, id).toBe('data/Missions');
    }
  });

  it('trusts the key group on /Missions/* under AUTH=local, and lets only the users functions read its key', () => {
    const files = behavior('/Missions/*');
    if (!p.signed) {
      expect(files?.TrustedKeyGroups).toBeUndefined();
      expect(all().FrontDoorMissionKeyGroup).toBeUndefined();
      return;
    }
    expect(files.TrustedKeyGroups).toEqual([{ Ref: 'FrontDoorMissionKeyGroup' }]);
    const group = all().FrontDoorMissionKeyGroup.Properties.KeyGroupConfig;
    // One public key per secret (CloudFront cannot change a key's bytes): its id names the secret's hash.
    const keyId = group.Items[0].Ref;
    expect(keyId).toMatch(/^FrontDoorMissionPublicKey[0-9a-f]{8}$/);
    expect(all()[keyId].Properties.PublicKeyConfig.EncodedKey).toBe(
      `{{resolve:secretsmanager:${KEY_SECRET}:SecretString:publicKey}}`,
    );
    const signers = ['UsersLoginLambdaFunction', 'UsersLoggedInLambdaFunction', 'UsersLogoutLambdaFunction'];
    for (const [id, fn] of Object.entries<any>(all()).filter(([, r]) => r.Type === 'AWS::Lambda::Function')) {
      const vars = fn.Properties.Environment.Variables;
      if (signers.includes(id)) {
        expect(vars.MISSION_COOKIE_KEY_ID, id).toEqual({ Ref: keyId });
        expect(vars.MISSION_COOKIE_KEY_SECRET_ARN, id).toBe(KEY_SECRET);
      } else expect(vars.MISSION_COOKIE_KEY_ID, id).toBeUndefined();
    }
    const policy = all().FrontDoorMissionKeyPolicy.Properties;
    expect(policy.PolicyDocument.Statement).toEqual([
      { Effect: 'Allow', Action: 'secretsmanager:GetSecretValue', Resource: KEY_SECRET },
    ]);
    const roles = new Set(signers.map((id) => all()[id].Properties.Role['Fn::GetAtt'][0]));
    expect(new Set(policy.Roles.map((r: any) => r.Ref))).toEqual(roles);
  });
});

/** One stack of `resources`. */
const oneStack = (resources: Record<string, any>): Stack[] => [
  { name: 'root', file: '', template: { Resources: resources }, bytes: 0, parent: null },
];
const OAC = {
  Type: 'AWS::CloudFront::OriginAccessControl',
  Properties: {
    OriginAccessControlConfig: {
      OriginAccessControlOriginType: 's3',
      SigningBehavior: 'always',
      SigningProtocol: 'sigv4',
    },
  },
};
const distribution = (origins: any[], behaviors: any[] = []) => ({
  Type: 'AWS::CloudFront::Distribution',
  Properties: { DistributionConfig: { Origins: origins, CacheBehaviors: behaviors } },
});
const oacId = { 'Fn::GetAtt': ['Oac', 'Id'] };

describe('each CloudFront and S3 rule catches the shape AWS refuses', () => {
  it('an OAC on an API origin, and an OAC beside an origin access identity', () => {
    const stacks = oneStack({
      Oac: OAC,
      Bucket: { Type: 'AWS::S3::Bucket', Properties: {} },
      D: distribution([
        {
          Id: 'Api',
          DomainName: 'abc.execute-api.us-east-1.amazonaws.com',
          CustomOriginConfig: { OriginProtocolPolicy: 'https-only' },
          OriginAccessControlId: oacId,
        },
        {
          Id: 'Files',
          DomainName: { 'Fn::GetAtt': ['Bucket', 'RegionalDomainName'] },
          S3OriginConfig: { OriginAccessIdentity: 'origin-access-identity/cloudfront/E1' },
          OriginAccessControlId: oacId,
        },
      ]),
    });
    expect(originAccessProblems(stacks)).toEqual([
      'D origin Api: an origin access control on an origin that is not S3 (S3OriginConfig)',
      'D origin Api: the domain "abc.execute-api.us-east-1.amazonaws.com" is not an S3 bucket\'s',
      'D origin Files: both an origin access control and an origin access identity',
    ]);
  });

  it('a key group without a public key, and a behaviour trusting something that is no key group', () => {
    const stacks = oneStack({
      Group: { Type: 'AWS::CloudFront::KeyGroup', Properties: { KeyGroupConfig: { Name: 'g', Items: [] } } },
      NoKey: {
        Type: 'AWS::CloudFront::KeyGroup',
        Properties: { KeyGroupConfig: { Name: 'h', Items: [{ Ref: 'Oac' }] } },
      },
      Oac: OAC,
      D: distribution([], [{ PathPattern: '/Missions/*', TrustedKeyGroups: [{ Ref: 'Oac' }] }]),
    });
    expect(keyGroupProblems(stacks)).toEqual([
      'Group: 0 public keys (1 to 5)',
      'NoKey: {"Ref":"Oac"} is no public key',
      'D /Missions/*: TrustedKeyGroups names {"Ref":"Oac"}, no key group',
    ]);
  });

  it('a public bucket policy where public policies are blocked, and CloudFront without SourceArn', () => {
    const stacks = oneStack({
      Bucket: {
        Type: 'AWS::S3::Bucket',
        Properties: { PublicAccessBlockConfiguration: { BlockPublicPolicy: true } },
      },
      Policy: {
        Type: 'AWS::S3::BucketPolicy',
        Properties: {
          Bucket: { Ref: 'Bucket' },
          PolicyDocument: {
            Statement: [
              { Effect: 'Allow', Principal: '*', Action: 's3:GetObject', Resource: 'arn:aws:s3:::b/*' },
              {
                Effect: 'Allow',
                Principal: { Service: 'cloudfront.amazonaws.com' },
                Action: 's3:GetObject',
                Resource: 'arn:aws:s3:::b/*',
              },
            ],
          },
        },
      },
    });
    expect(bucketPolicyProblems(stacks)).toEqual([
      'Policy: allows everyone on a bucket that blocks public policies',
      'Policy: grants CloudFront without an AWS:SourceArn condition',
    ]);
  });
});
