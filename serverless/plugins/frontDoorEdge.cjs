'use strict';
// The front door's edge parts (serverless/plugins/front-door.cjs; docs/deploying.md, "The front door"):
// the WAF rate rule, the lock that closes the REST API's own `execute-api` host to all but CloudFront,
// and the DNS records of a custom domain.

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

module.exports = { webAclResources, originLockResources, aliasRecords };
