'use strict';
// Local serverless plugin: the REST API's stage is an `AWS::ApiGateway::Stage` resource of its own
// (docs/deploying.md, "Updating"), never the `StageName`/`StageDescription` of a Deployment.
//
// Serverless makes a new `AWS::ApiGateway::Deployment` (a new logical id) on every deploy, with
// `StageName: <stage>`. A Deployment that carries `StageDescription` creates the stage, and CloudFormation
// refuses that on every later deploy, once the stage exists ("StageDescription cannot be specified when
// stage referenced by StageName already exists"). A stage first made by a Deployment cannot be adopted by a
// Stage resource later either ("<stage> already exists"), so this is how the stage is made from the first
// deploy on. The Stage points at each new Deployment through `DeploymentId`, which CloudFormation updates
// in place ("Update requires: No interruption", AWS::ApiGateway::Stage reference); the old Deployment is
// deleted in the cleanup phase, after the Stage has moved off it.
//
// The stage's own settings live here too, each behind a `--param` (custom.restApiStage):
// - access logs (`accessLogs`, default true): one JSON line per request into a log group with the
//   functions' retention. API Gateway writes logs only once the region's account settings name a
//   CloudWatch role ("Set up CloudWatch logging for REST APIs"), so the stack sets one
//   (`AWS::ApiGateway::Account`) unless `apiGatewayAccountRole=false` says the account has one already.
//   Role and setting are kept when the stack is removed (DeletionPolicy Retain): the setting is the
//   region's, and another stage's logs still use it;
// - X-Ray tracing (`tracing`, default true) of the stage (the functions' own tracing is
//   provider.tracing.lambda);
// - compression of answers over `minimumCompressionSize` bytes (default 1024; -1 turns it off): API
//   Gateway compresses after the function answered, so ETags pass unchanged (API Gateway "Enabling payload
//   compression for an API").
// gateway-cache.cjs and deployment.cjs then write the cache and throttles onto this Stage.

const { flag } = require('./pluginParams.cjs');

const STAGE_ID = 'ApiGatewayStage';
const ACCESS_LOG_ID = 'ApiGatewayAccessLogGroup';

/** The access log line (API Gateway $context variables; JSON so CloudWatch Logs Insights reads its fields). */
const ACCESS_LOG_FORMAT = JSON.stringify({
  requestId: '$context.requestId',
  ip: '$context.identity.sourceIp',
  time: '$context.requestTimeEpoch',
  method: '$context.httpMethod',
  path: '$context.path',
  resource: '$context.resourcePath',
  status: '$context.status',
  length: '$context.responseLength',
  latency: '$context.responseLatency',
  integrationLatency: '$context.integrationLatency',
  userAgent: '$context.identity.userAgent',
});

const ACCOUNT_ID = 'ApiGatewayAccountSettings';

/** The region's API Gateway CloudWatch role and the setting that names it, both kept on removal. */
function accountRole() {
  return {
    ApiGatewayCloudWatchRole: {
      Type: 'AWS::IAM::Role',
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: {
        AssumeRolePolicyDocument: {
          Version: '2012-10-17',
          Statement: [
            {
              Effect: 'Allow',
              Principal: { Service: ['apigateway.amazonaws.com'] },
              Action: ['sts:AssumeRole'],
            },
          ],
        },
        ManagedPolicyArns: [
          {
            'Fn::Sub': `arn:\${AWS::Partition}:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs`,
          },
        ],
      },
    },
    [ACCOUNT_ID]: {
      Type: 'AWS::ApiGateway::Account',
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: { CloudWatchRoleArn: { 'Fn::GetAtt': ['ApiGatewayCloudWatchRole', 'Arn'] } },
    },
  };
}

/**
 * Moves the stage of the template's REST API Deployment into a Stage resource; returns its logical id, or
 * null when the template has no REST API Deployment.
 */
function stageResource(resources, options = {}) {
  const deployments = Object.entries(resources).filter(([, r]) => r.Type === 'AWS::ApiGateway::Deployment');
  if (deployments.length === 0) return null;
  if (deployments.length > 1) throw new Error('rest-api-stage: more than one REST API Deployment');
  const [deploymentId, deployment] = deployments[0];
  const props = deployment.Properties;
  const stageName = props.StageName ?? resources[STAGE_ID]?.Properties?.StageName;
  if (!stageName) throw new Error('rest-api-stage: the Deployment names no stage');
  const described = props.StageDescription ?? {};
  delete props.StageName;
  delete props.StageDescription;
  const stage = {
    Type: 'AWS::ApiGateway::Stage',
    Properties: {
      RestApiId: props.RestApiId,
      DeploymentId: { Ref: deploymentId },
      StageName: stageName,
      ...described,
      MethodSettings: described.MethodSettings ?? [],
    },
  };
  if (flag(options.tracing, true)) stage.Properties.TracingEnabled = true;
  if (flag(options.accessLogs, true)) {
    resources[ACCESS_LOG_ID] = {
      Type: 'AWS::Logs::LogGroup',
      Properties: { RetentionInDays: options.retentionInDays ?? 30 },
    };
    if (flag(options.accountRole, true)) {
      Object.assign(resources, accountRole());
      stage.DependsOn = [ACCOUNT_ID];
    }
    stage.Properties.AccessLogSetting = {
      DestinationArn: { 'Fn::GetAtt': [ACCESS_LOG_ID, 'Arn'] },
      Format: ACCESS_LOG_FORMAT,
    };
  }
  resources[STAGE_ID] = stage;
  const size = Number(options.minimumCompressionSize ?? 1024);
  if (resources.ApiGatewayRestApi && Number.isInteger(size) && size >= 0 && size <= 10485760) {
    resources.ApiGatewayRestApi.Properties.MinimumCompressionSize = size;
  }
  return STAGE_ID;
}

class RestApiStagePlugin {
  constructor(serverless) {
    this.serverless = serverless;
    this.hooks = { 'before:package:finalize': () => this.apply() };
  }

  apply() {
    const sls = this.serverless;
    const template = sls.service.provider.compiledCloudFormationTemplate;
    const options = {
      ...(sls.service.custom?.restApiStage ?? {}),
      retentionInDays: sls.service.provider.logRetentionInDays,
    };
    let id;
    try {
      id = stageResource(template.Resources, options);
    } catch (e) {
      throw new sls.classes.Error(e.message);
    }
    if (id) sls.cli.log(`rest-api-stage: stage ${template.Resources[id].Properties.StageName} as ${id}`);
  }
}

module.exports = RestApiStagePlugin;
module.exports.stageResource = stageResource;
module.exports.STAGE_ID = STAGE_ID;
