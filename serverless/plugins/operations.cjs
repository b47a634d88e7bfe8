'use strict';
// Local serverless plugin: what an operator needs on day one (docs/deploying.md, "Operating it"), each
// part behind a `--param` (custom.operations):
//
// - `alarms` (default true): an SNS topic `AlarmTopic` (output `AlarmTopicArn`; `alarmEmail` subscribes an
//   address, which AWS asks to confirm) and CloudWatch alarms on it:
//   * the REST API stage's 5XXError (any 5xx answer in 5 minutes),
//   * Lambda Errors and Throttles of the region (the `AWS/Lambda` metrics without a dimension: every
//     function of the account in the region, so an account of its own keeps them ours),
//   * the depth of the failed-jobs queue (any message).
// - `failureDestinations` (default true): every job function (functions/jobs/ but the migration) is
//   invoked asynchronously; when an invocation fails for good (a timeout, a crash: the handler itself
//   reports its errors in the job row) Lambda sends the event to the SQS queue `JobFailureQueue`
//   (AWS::Lambda::EventInvokeConfig DestinationConfig.OnFailure; Lambda "Capturing records of asynchronous
//   invocations"). The queue keeps messages 14 days.
//
// The functions' X-Ray tracing is serverless.yml's provider.tracing.lambda; the stage's, its access logs:
// serverless/plugins/rest-api-stage.cjs.

const { flag } = require('./pluginParams.cjs');

const JOB_PREFIX = 'dist/functions/jobs/';
const MIGRATE = 'dist/functions/jobs/migrate.handler';

/** The job functions' logical ids: handlers under functions/jobs/ but the migration. */
function jobFunctionIds(resources) {
  return Object.entries(resources)
    .filter(([, r]) => r.Type === 'AWS::Lambda::Function')
    .filter(([, r]) => {
      const handler = String(r.Properties.Handler ?? '');
      return handler.startsWith(JOB_PREFIX) && handler !== MIGRATE;
    })
    .map(([id]) => id);
}

function alarm(description, metric, extra = {}) {
  return {
    Type: 'AWS::CloudWatch::Alarm',
    Properties: {
      AlarmDescription: description,
      Namespace: metric.namespace,
      MetricName: metric.name,
      Dimensions: metric.dimensions ?? [],
      Statistic: metric.statistic ?? 'Sum',
      Period: 300,
      EvaluationPeriods: 1,
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'notBreaching',
      AlarmActions: [{ Ref: 'AlarmTopic' }],
      OKActions: [{ Ref: 'AlarmTopic' }],
      ...extra,
    },
  };
}

/** Adds the operator's resources to `resources`; returns the ids added. */
function operationsResources(resources, { alarms, alarmEmail, failureDestinations, roleId, stageName }) {
  const added = {};
  if (failureDestinations) {
    added.JobFailureQueue = {
      Type: 'AWS::SQS::Queue',
      Properties: { MessageRetentionPeriod: 1209600, SqsManagedSseEnabled: true },
    };
    for (const id of jobFunctionIds(resources)) {
      added[`${id.replace(/LambdaFunction$/, '')}AsyncConfig`] = {
        Type: 'AWS::Lambda::EventInvokeConfig',
        // Lambda checks that the function's role may send to the destination when the configuration is
        // stored: the policy first.
        DependsOn: roleId && resources[roleId] ? ['JobFailureQueuePolicy'] : [],
        Properties: {
          FunctionName: { Ref: id },
          Qualifier: '$LATEST',
          DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': ['JobFailureQueue', 'Arn'] } } },
        },
      };
    }
    if (roleId && resources[roleId]) {
      added.JobFailureQueuePolicy = {
        Type: 'AWS::IAM::Policy',
        // Only the job functions' roles need it (function-roles.cjs reads this list).
        Metadata: { Functions: jobFunctionIds(resources) },
        Properties: {
          PolicyName: 'job-failures',
          Roles: [{ Ref: roleId }],
          PolicyDocument: {
            Version: '2012-10-17',
            Statement: [
              {
                Effect: 'Allow',
                Action: 'sqs:SendMessage',
                Resource: { 'Fn::GetAtt': ['JobFailureQueue', 'Arn'] },
              },
            ],
          },
        },
      };
    }
  }
  if (alarms) {
    added.AlarmTopic = {
      Type: 'AWS::SNS::Topic',
      Properties: {
        Subscription: alarmEmail ? [{ Protocol: 'email', Endpoint: alarmEmail }] : [],
      },
    };
    const restApiName = resources.ApiGatewayRestApi?.Properties?.Name;
    if (restApiName && stageName) {
      added.Api5xxAlarm = alarm('The REST API answered 5xx (docs/deploying.md, "Operating it")', {
        namespace: 'AWS/ApiGateway',
        name: '5XXError',
        dimensions: [
          { Name: 'ApiName', Value: restApiName },
          { Name: 'Stage', Value: stageName },
        ],
      });
    }
    added.LambdaErrorsAlarm = alarm('A function failed (docs/deploying.md, "Operating it")', {
      namespace: 'AWS/Lambda',
      name: 'Errors',
    });
    added.LambdaThrottlesAlarm = alarm('A function was throttled: concurrency is exhausted', {
      namespace: 'AWS/Lambda',
      name: 'Throttles',
    });
    if (added.JobFailureQueue) {
      added.JobFailureQueueAlarm = alarm(
        'A job invocation failed for good: its event is in JobFailureQueue',
        {
          namespace: 'AWS/SQS',
          name: 'ApproximateNumberOfMessagesVisible',
          statistic: 'Maximum',
          dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': ['JobFailureQueue', 'QueueName'] } }],
        },
      );
    }
  }
  Object.assign(resources, added);
  return Object.keys(added);
}

class OperationsPlugin {
  constructor(serverless) {
    this.serverless = serverless;
    this.hooks = { 'before:package:finalize': () => this.apply() };
  }

  apply() {
    const sls = this.serverless;
    const template = sls.service.provider.compiledCloudFormationTemplate;
    const options = sls.service.custom?.operations ?? {};
    let settings;
    try {
      settings = {
        alarms: flag(options.alarms, true),
        failureDestinations: flag(options.failureDestinations, true),
      };
    } catch (e) {
      throw new sls.classes.Error(`operations: ${e.message}`);
    }
    const stage = Object.values(template.Resources).find((r) => r.Type === 'AWS::ApiGateway::Stage');
    const added = operationsResources(template.Resources, {
      ...settings,
      alarmEmail: String(options.alarmEmail ?? '').trim(),
      roleId: 'IamRoleLambdaExecution',
      stageName: stage?.Properties?.StageName,
    });
    if (template.Resources.AlarmTopic) {
      template.Outputs ??= {};
      template.Outputs.AlarmTopicArn = {
        Description: 'The SNS topic of the alarms (docs/deploying.md, "Operating it")',
        Value: { Ref: 'AlarmTopic' },
      };
    }
    sls.cli.log(`operations: ${added.length} resource(s) (alarms, failed-job queue)`);
  }
}

module.exports = OperationsPlugin;
module.exports.operationsResources = operationsResources;
module.exports.jobFunctionIds = jobFunctionIds;
