'use strict';
// The front door's edge parts (serverless/plugins/front-door.cjs; docs/deploying.md, "The front door"):
// the WAF rate rule, the lock that closes the REST API's own `execute-api` host to all but CloudFront,
// the DNS records of a custom domain, the edge options of custom.frontDoor, and the key group of the
// `/Missions` cookies (serverless/plugins/frontDoorOrigins.cjs).

const { createHash } = require('node:crypto');
const { flag } = require('./pluginParams.cjs');

/** CloudFront's hosted zone id for alias records (Route 53 "AliasTarget": the same in every partition region). */
const CLOUDFRONT_ZONE = 'Z2FDTNDATAQYW2';

/**
 * A WAFv2 web ACL for CloudFront: one rate-based rule that blocks, with a 429 in the service's failure
 * shape, an address that sends more than `limit` requests in `windowSeconds`. A web ACL of scope
 * CLOUDFRONT can only be created in us-east-1 (AWS WAF "Scope"), so elsewhere an existing one is named
 * with `wafAclArn`.
 */
function webAclResources(name, limit, windowSeconds) {
  const metric = (m) => ({ SampledRequestsEnabled: true, CloudWatchMetricsEnabled: true, MetricName: m });
  return {
    FrontDoorWebAcl: {
      Type: 'AWS::WAFv2::WebACL',
      Properties: {
        Scope: 'CLOUDFRONT',
        DefaultAction: { Allow: {} },
        VisibilityConfig: metric(`${name}-acl`),
        CustomResponseBodies: {
          TooMany: {
            ContentType: 'APPLICATION_JSON',
            Content: JSON.stringify({
              status: 'failure',
              message: 'Too many requests from this address: wait a minute and try again.',
            }),
          },
        },
        Rules: [
          {
            Name: 'rate-per-address',
            Priority: 0,
            Statement: {
              RateBasedStatement: {
                Limit: limit,
                EvaluationWindowSec: windowSeconds,
                AggregateKeyType: 'IP',
              },
            },
            Action: {
              Block: {
                CustomResponse: {
                  ResponseCode: 429,
                  CustomResponseBodyKey: 'TooMany',
                  ResponseHeaders: [{ Name: 'Retry-After', Value: String(windowSeconds) }],
                },
              },
            },
            VisibilityConfig: metric(`${name}-rate`),
          },
        ],
      },
    },
  };
}

/**
 * Closes the REST API's `execute-api` host to everything but CloudFront: every method requires an API key,
 * whose value is a generated secret that only CloudFront sends (an origin custom header `x-api-key`, which
 * replaces a header of that name from the viewer: CloudFront "Add custom headers to origin requests"). A
 * request to the raw host is refused by API Gateway itself (403), before any function runs. The value never
 * appears in the template: both read it by a Secrets Manager dynamic reference. Returns the resources and
 * the origin header.
 */
function originLockResources(restApiId, stageId, resources) {
  const secret = 'FrontDoorOriginSecret';
  const value = {
    'Fn::Sub': `{{resolve:secretsmanager:\${${secret}}:SecretString}}`,
  };
  let methods = 0;
  for (const r of Object.values(resources)) {
    if (r.Type !== 'AWS::ApiGateway::Method') continue;
    r.Properties.ApiKeyRequired = true;
    methods++;
  }
  return {
    methods,
    header: { HeaderName: 'x-api-key', HeaderValue: value },
    resources: {
      [secret]: {
        Type: 'AWS::SecretsManager::Secret',
        Properties: {
          Description: 'The key CloudFront sends to the REST API (docs/deploying.md, "The front door")',
          GenerateSecretString: { PasswordLength: 40, ExcludePunctuation: true },
        },
      },
      FrontDoorApiKey: {
        Type: 'AWS::ApiGateway::ApiKey',
        Properties: { Enabled: true, Value: value },
      },
      FrontDoorUsagePlan: {
        Type: 'AWS::ApiGateway::UsagePlan',
        // The stage must exist before a usage plan names it.
        DependsOn: [stageId],
        Properties: {
          Description: 'CloudFront, the one caller of the REST API',
          ApiStages: [{ ApiId: { Ref: restApiId }, Stage: { Ref: stageId } }],
        },
      },
      FrontDoorUsagePlanKey: {
        Type: 'AWS::ApiGateway::UsagePlanKey',
        Properties: {
          KeyId: { Ref: 'FrontDoorApiKey' },
          KeyType: 'API_KEY',
          UsagePlanId: { Ref: 'FrontDoorUsagePlan' },
        },
      },
    },
  };
}

/** Route 53 alias records (A and AAAA) of `domainName` to the distribution, in `hostedZoneId`. */
function aliasRecords(domainName, hostedZoneId) {
  const record = (Type) => ({
    Type: 'AWS::Route53::RecordSet',
    Properties: {
      HostedZoneId: hostedZoneId,
      Name: domainName,
      Type,
      AliasTarget: {
        DNSName: { 'Fn::GetAtt': ['FrontDoorDistribution', 'DomainName'] },
        HostedZoneId: CLOUDFRONT_ZONE,
      },
    },
  });
  return { FrontDoorRecordA: record('A'), FrontDoorRecordAAAA: record('AAAA') };
}

/**
 * The edge options (custom.frontDoor): `waf` (auto: a web ACL made in us-east-1, where CloudFront's must
 * live; elsewhere none unless `wafAclArn` names one), `wafRateLimit` requests per `wafWindow` seconds per
 * address, `originLock` (default true), `domainName` with `certificateArn` (ACM, us-east-1) and optionally
 * `hostedZoneId` for its DNS records; `missionKeySecretArn`, the secret of the `/Missions` cookie key.
 */
function edgeSettings(options, region) {
  const text = (v) => String(v ?? '').trim();
  const wafAclArn = text(options.wafAclArn);
  const wafWanted = text(options.waf || 'auto').toLowerCase();
  if (!['auto', 'true', 'false'].includes(wafWanted))
    throw new Error(`waf=${options.waf}: true, false or auto`);
  if (wafWanted === 'true' && region !== 'us-east-1')
    throw new Error('waf=true: a CloudFront web ACL is made in us-east-1 only; name one with wafAclArn');
  const waf = !wafAclArn && (wafWanted === 'true' || (wafWanted === 'auto' && region === 'us-east-1'));
  const wafRateLimit = Number(options.wafRateLimit ?? 3000);
  const wafWindow = Number(options.wafWindow ?? 300);
  if (!Number.isInteger(wafRateLimit) || wafRateLimit < 10 || wafRateLimit > 2e9)
    throw new Error(`wafRateLimit=${options.wafRateLimit}: a whole number from 10`);
  if (![60, 120, 300, 600].includes(wafWindow))
    throw new Error(`wafWindow=${options.wafWindow}: 60, 120, 300 or 600`);
  const domainName = text(options.domainName).toLowerCase();
  const certificateArn = text(options.certificateArn);
  if (domainName && !/^arn:aws[\w-]*:acm:us-east-1:/.test(certificateArn))
    throw new Error('domainName needs certificateArn, an ACM certificate in us-east-1');
  const missionKeySecretArn = text(options.missionKeySecretArn);
  if (missionKeySecretArn && !/^arn:aws[\w-]*:secretsmanager:/.test(missionKeySecretArn))
    throw new Error('missionKeySecretArn: the ARN of a Secrets Manager secret');
  return {
    missionKeySecretArn,
    waf,
    wafAclArn,
    wafRateLimit,
    wafWindow,
    originLock: flag(options.originLock, true),
    domainName,
    certificateArn,
    hostedZoneId: text(options.hostedZoneId),
  };
}

/** The users functions that issue, refresh and clear the /Missions cookies. */
const COOKIE_FUNCTIONS = [
  'UsersLoginLambdaFunction',
  'UsersLoggedInLambdaFunction',
  'UsersLogoutLambdaFunction',
];

/**
 * The public key's logical id: one per secret. CloudFront changes nothing of a public key but its comment
 * (UpdatePublicKey), so a new key pair, in a new secret, is a new resource that replaces the old one.
 */
function publicKeyId(secretArn) {
  return `FrontDoorMissionPublicKey${createHash('sha1').update(secretArn).digest('hex').slice(0, 8)}`;
}

/** The trusted key group of `/Missions/*` and the policy that lets the users functions read its private key. */
function keyResources(name, secretArn) {
  const keyId = publicKeyId(secretArn);
  return {
    [keyId]: {
      Type: 'AWS::CloudFront::PublicKey',
      Properties: {
        PublicKeyConfig: {
          CallerReference: `${name}-${keyId}`,
          Name: `${name}-${keyId}`.slice(0, 128),
          Comment: 'Signs the /Missions cookies (docs/mission-site.md)',
          EncodedKey: `{{resolve:secretsmanager:${secretArn}:SecretString:publicKey}}`,
        },
      },
    },
    FrontDoorMissionKeyGroup: {
      Type: 'AWS::CloudFront::KeyGroup',
      Properties: {
        KeyGroupConfig: {
          Name: `${name}-mission-files`.slice(0, 128),
          Comment: 'The key of the /Missions cookies',
          Items: [{ Ref: keyId }],
        },
      },
    },
    FrontDoorMissionKeyPolicy: {
      Type: 'AWS::IAM::Policy',
      // Only the roles of the functions that sign (function-roles.cjs reads this list).
      Metadata: { Functions: COOKIE_FUNCTIONS },
      Properties: {
        PolicyName: 'mission-cookie-key',
        Roles: [{ Ref: 'IamRoleLambdaExecution' }],
        PolicyDocument: {
          Version: '2012-10-17',
          Statement: [{ Effect: 'Allow', Action: 'secretsmanager:GetSecretValue', Resource: secretArn }],
        },
      },
    },
  };
}

/** The settings of the functions that sign the cookies. */
function signingVariables(resources, secretArn) {
  let n = 0;
  for (const id of COOKIE_FUNCTIONS) {
    const vars = resources[id]?.Properties?.Environment?.Variables;
    if (!vars) continue;
    vars.MISSION_COOKIE_KEY_ID = { Ref: publicKeyId(secretArn) };
    vars.MISSION_COOKIE_KEY_SECRET_ARN = secretArn;
    n++;
  }
  return n;
}

module.exports = {
  webAclResources,
  originLockResources,
  aliasRecords,
  edgeSettings,
  keyResources,
  signingVariables,
};
