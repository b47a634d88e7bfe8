'use strict';
// Local serverless plugin: the deployment settings of docs/deploying.md, written into the CloudFormation
// template (hook `before:package:finalize`) so a test on the packaged template can check them.
//
// - Stage throttling: the REST API stage's (an AWS::ApiGateway::Stage, rest-api-stage.cjs) default method settings get ThrottlingRateLimit and
//   ThrottlingBurstLimit (also added to every MethodSettings entry that has none, so the tile cache's
//   entries keep the limit). The WebSocket API's stage gets DefaultRouteSettings with the same kind of
//   limits (wsThrottleRate, wsThrottleBurst): messages and connects per second across all connections.
// - Reserved concurrency (custom.deployment.reservations): each parameter's value (0: no reservation, the
//   default) goes to its functions as ReservedConcurrentExecutions (`functions: jobs`: every handler under
//   dist/functions/jobs/ but the migration). AWS refuses a reservation that leaves under 100 of the
//   account's concurrency unreserved, and only at deploy time, after the upload: packaging fails first
//   when the reservations leave under 100 of accountConcurrency, naming the parameters.
// - API Gateway's own answers (throttled, function not invocable, other gateway errors) get the service's
//   JSON shape, CORS and Retry-After (serverless/plugins/gatewayResponses.cjs).
// - The migration function runs once per deploy: a custom resource `MigrateOnDeploy` whose `Deployment`
//   property changes on every package, so CloudFormation invokes it on each stack update
//   (functions/jobs/migrate.ts answers the custom-resource protocol).
//
// - AUTH must be chosen: `serverless package` (and so `deploy`) of any stage but `local` fails while the
//   AUTH environment variable is unset, and for any value but `none` or `local` (docs/deploying.md):
//   the functions would otherwise run as AUTH=none, an open deployment, without anyone having said so.
//
// Options (custom.deployment): throttleRate (requests/s, default 100), throttleBurst (default 200),
// wsThrottleRate (WebSocket messages/s, default 50), wsThrottleBurst (default 100), accountConcurrency
// (default 1000), reservations ({ param: { value, functions } }), migrateOnDeploy (default true).

const { createHash } = require('node:crypto');
const { readdirSync, readFileSync } = require('node:fs');
const { join } = require('node:path');
const { settingIfSet, settingText } = require('../../scripts/settings.cjs');
const { gatewayResponses } = require('./gatewayResponses.cjs');

function migrationsHash(dir) {
  const h = createHash('sha256');
  try {
    for (const f of readdirSync(dir).sort()) h.update(f).update(readFileSync(join(dir, f)));
  } catch {
    // no migrations folder
  }
  return h.digest('hex').slice(0, 16);
}

/** The logical ids of the Lambda functions a reservation names (`jobs`: every job but the migration). */
function reservedIds(sls, resources, functions) {
  if (functions === 'jobs') {
    return Object.entries(resources)
      .filter(([, r]) => r.Type === 'AWS::Lambda::Function')
      .filter(([, r]) => {
        const handler = String(r.Properties.Handler ?? '');
        return (
          handler.startsWith('dist/functions/jobs/') && handler !== 'dist/functions/jobs/migrate.handler'
        );
      })
      .map(([id]) => id);
  }
  const naming = sls.getProvider('aws').naming;
  return [].concat(functions ?? []).map((name) => {
    const id = naming.getLambdaLogicalId(name);
    if (!resources[id])
      throw new sls.classes.Error(`deployment: reservations name a function '${name}' that does not exist`);
    return id;
  });
}

/**
 * Sets ReservedConcurrentExecutions from custom.deployment.reservations and fails when they leave under
 * 100 of accountConcurrency unreserved (AWS's rule); returns the sum reserved.
 */
function applyReservations(sls, resources, options) {
  const account = Number(options.accountConcurrency ?? 1000);
  const parts = [];
  let total = 0;
  for (const [param, { value, functions }] of Object.entries(options.reservations ?? {})) {
    const n = Number(value ?? 0);
    if (!Number.isInteger(n) || n < 0) {
      throw new sls.classes.Error(
        `--param="${param}=${value}": a reserved concurrency is a whole number, 0 for none.`,
      );
    }
    const ids = reservedIds(sls, resources, functions);
    if (n === 0) continue;
    for (const id of ids) resources[id].Properties.ReservedConcurrentExecutions = n;
    total += n * ids.length;
    parts.push(`${param}=${n} × ${ids.length} function(s) = ${n * ids.length}`);
  }
  if (total > 0 && account - total < 100) {
    throw new sls.classes.Error(
      `Reserved concurrency ${total} (${parts.join(', ')}) leaves ${account - total} of accountConcurrency=${account} ` +
        'unreserved; AWS requires 100. Lower those parameters, or set --param="accountConcurrency=..." to your ' +
        "account's quota (aws lambda get-account-settings) if it is higher (docs/deploying.md).",
    );
  }
  return total;
}

class DeploymentPlugin {
  constructor(serverless) {
    this.serverless = serverless;
    this.hooks = {
      'before:package:initialize': () => this.checkAuth(),
      'before:package:finalize': () => this.apply(),
      // serverless.yml's `resources` are in the template from here on; the nested stacks are split after.
      'after:aws:package:finalize:mergeCustomProviderResources': () => this.dependOnPolicy(),
    };
  }

  /** The migration waits for the policy that gives its function the database (nothing else orders them). */
  dependOnPolicy() {
    const resources = this.serverless.service.provider.compiledCloudFormationTemplate.Resources;
    const migrate = resources.MigrateOnDeploy;
    if (!migrate || !resources.DatabaseAccessPolicy) return;
    migrate.DependsOn = [...new Set([...(migrate.DependsOn ?? []), 'DatabaseAccessPolicy'])];
  }

  checkAuth() {
    const sls = this.serverless;
    const stage = sls.getProvider('aws').getStage();
    // The service reads an unset or unknown AUTH as `none`; packaging wants it chosen, so it reads the text.
    if (settingIfSet('AUTH') !== undefined) return;
    const auth = settingText('AUTH');
    if (auth === undefined && stage === 'local') return;
    const fail = (message) => {
      throw new sls.classes.Error(message);
    };
    if (auth === undefined) {
      fail(
        `AUTH is not set for stage '${stage}': set AUTH=local (accounts, the first one made with ` +
          'users/first_signup) or AUTH=none (anyone may read and edit) before packaging or deploying ' +
          '(docs/deploying.md).',
      );
    }
    fail(`AUTH='${auth}' is not a mode: set AUTH=local or AUTH=none (docs/deploying.md).`);
  }

  apply() {
    const sls = this.serverless;
    const options = sls.service.custom?.deployment ?? {};
    const rate = Number(options.throttleRate ?? 100);
    const burst = Number(options.throttleBurst ?? 200);
    const wsRate = Number(options.wsThrottleRate ?? 50);
    const wsBurst = Number(options.wsThrottleBurst ?? 100);
    const template = sls.service.provider.compiledCloudFormationTemplate;
    const resources = template.Resources;

    for (const r of Object.values(resources)) {
      if (r.Type === 'AWS::ApiGatewayV2::Stage') {
        r.Properties.DefaultRouteSettings ??= {};
        r.Properties.DefaultRouteSettings.ThrottlingRateLimit ??= wsRate;
        r.Properties.DefaultRouteSettings.ThrottlingBurstLimit ??= wsBurst;
        continue;
      }
      // The stage is a resource of its own (serverless/plugins/rest-api-stage.cjs), never a Deployment's.
      if (r.Type !== 'AWS::ApiGateway::Stage') continue;
      // A Stage's throttles are its MethodSettings: '/*' '*' is every method's default.
      const desc = r.Properties;
      desc.MethodSettings ??= [];
      if (!desc.MethodSettings.some((m) => m.ResourcePath === '/*' && m.HttpMethod === '*'))
        desc.MethodSettings.unshift({ ResourcePath: '/*', HttpMethod: '*' });
      for (const m of desc.MethodSettings) {
        m.ThrottlingRateLimit ??= rate;
        m.ThrottlingBurstLimit ??= burst;
      }
    }

    if (resources.ApiGatewayRestApi) {
      for (const [id, r] of Object.entries(gatewayResponses({ Ref: 'ApiGatewayRestApi' })))
        resources[id] ??= r;
    }

    let migrateId;
    for (const [id, r] of Object.entries(resources)) {
      if (r.Type !== 'AWS::Lambda::Function') continue;
      if (String(r.Properties.Handler ?? '') === 'dist/functions/jobs/migrate.handler') migrateId = id;
    }
    const reserved = applyReservations(sls, resources, options);

    if (migrateId && options.migrateOnDeploy !== false) {
      resources.MigrateOnDeploy = {
        Type: 'Custom::Migrate',
        // The policy that gives the function the Data API and the secret is a resource of its own, which
        // CloudFormation may create in parallel unless told to wait (DependsOn attribute reference).
        // (DatabaseAccessPolicy comes from serverless.yml's `resources`, merged later: dependOnPolicy.)
        DependsOn: [migrateId],
        Properties: {
          ServiceToken: { 'Fn::GetAtt': [migrateId, 'Arn'] },
          // A function that dies before it answers holds the deploy for this long, not the default hour
          // (AWS::CloudFormation::CustomResource ServiceTimeout): its own timeout and a minute.
          ServiceTimeout: String(Number(resources[migrateId].Properties.Timeout ?? 300) + 60),
          Migrations: migrationsHash(join(sls.config.servicePath, 'sql', 'migrations')),
          Deployment: new Date().toISOString(),
        },
      };
    }
    sls.cli.log(
      `deployment: stage throttle ${rate}/s burst ${burst}; websocket ${wsRate}/s burst ${wsBurst}; reserved concurrency ${reserved}; migrate on deploy ${!!migrateId}`,
    );
  }
}

module.exports = DeploymentPlugin;
