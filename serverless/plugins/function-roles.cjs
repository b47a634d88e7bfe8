'use strict';
// Local serverless plugin: each function runs with a role that holds only what its code can call
// (docs/deploying.md, "Roles"). IAM's least privilege, decided from the bundles themselves, so a new call
// in the code cannot be forgotten in serverless.yml:
//
// - every role: its logs and X-Ray (serverless's own statements), and the database (DatabaseAccessPolicy);
// - `invoke` (lambda:InvokeFunction on this service's functions): a bundle that invokes asynchronously
//   (lib/jobs/invoke.ts: `InvocationType: "Event"`): the functions that start jobs or webhooks;
// - `uploads` (put, get, delete in the uploads bucket): a bundle that writes S3 (`PutObject`): uploads,
//   exports and oversized answers;
// - `missionData` (get and list in the mission data bucket): a bundle that reads S3 (`GetObject`,
//   `ListObjectsV2`);
// - `push` (execute-api:ManageConnections on this stack's WebSocket API only): a bundle that posts to
//   WebSocket connections (`PostToConnection`).
// - `sitePages` (s3:GetObject on the MMGIS page templates' keys in the site bucket, the statement
//   `MmgisSitePages` the front door adds): a bundle holding lib/web/mmgis/bucketBuild.ts, the page
//   functions. The S3 signs above are the SDK's own names, in every bundle holding its S3 client; such a
//   bundle gets `uploads` and `missionData` only when it also opens the uploads bucket or the mission data
//   root (`uploadBucket`, `missionStorage`: esbuild keeps them only when called), so the page functions'
//   role reads the templates and nothing else.
// The statements come from serverless.yml's provider.iam (classified by action); each combination in use
// gets one role. A bundle that is missing fails the package: it cannot be judged.

const { existsSync, readFileSync } = require('node:fs');
const { join } = require('node:path');

const SIGNS = {
  invoke: /InvocationType:\s*"Event"/,
  uploads: /PutObjectCommand|CreateMultipartUploadCommand/,
  missionData: /GetObjectCommand|ListObjectsV2Command/,
  push: /PostToConnectionCommand/,
  // esbuild's comment opening the module in the (unminified) bundle.
  sitePages: /^\/\/ lib\/web\/mmgis\/bucketBuild\.ts$/m,
};
/** What a `sitePages` bundle's S3 client stands for only when it opens those buckets too. */
const NOT_FOR_PAGES = ['uploads', 'missionData'];
const OPENS_OTHER_BUCKETS = /^function (missionStorage|uploadBucket)\(/m;

/** The capability a statement of provider.iam grants, by its actions. */
function capabilityOf(statement) {
  const actions = [].concat(statement.Action ?? []).map(String);
  if (statement.Sid === 'MmgisSitePages') return 'sitePages';
  if (actions.every((a) => a.startsWith('logs:') || a.startsWith('xray:'))) return 'base';
  if (actions.includes('lambda:InvokeFunction')) return 'invoke';
  if (actions.includes('execute-api:ManageConnections')) return 'push';
  if (actions.includes('s3:PutObject')) return 'uploads';
  if (actions.includes('s3:ListBucket') || actions.includes('s3:GetObject')) return 'missionData';
  return 'base';
}

/** What the bundle of handler `handler` (`dist/functions/x.handler`) can call. */
function capabilitiesOf(servicePath, handler) {
  const file = join(servicePath, `${handler.replace(/\.[^.]+$/, '')}.js`);
  if (!existsSync(file))
    throw new Error(`function-roles: no bundle ${file}: run node scripts/build.mjs first`);
  const code = readFileSync(file, 'utf8');
  const caps = Object.keys(SIGNS).filter((k) => SIGNS[k].test(code));
  if (!caps.includes('sitePages') || OPENS_OTHER_BUCKETS.test(code)) return caps;
  return caps.filter((c) => !NOT_FOR_PAGES.includes(c));
}

const roleId = (caps) =>
  caps.length === 0
    ? 'IamRoleLambdaBase'
    : `IamRoleLambda${caps.map((c) => c[0].toUpperCase() + c.slice(1)).join('')}`;

/**
 * Replaces the one role by a role per combination of capabilities; returns { roles: {id: functions} }.
 * `websocketApiId`: the WebSocket API's logical id, which narrows ManageConnections to it.
 */
function applyRoles(resources, servicePath, websocketApiId) {
  const base = resources.IamRoleLambdaExecution;
  if (!base) return { roles: {} };
  const statements = base.Properties.Policies?.[0]?.PolicyDocument?.Statement ?? [];
  const byCap = {};
  for (const s of statements) {
    const cap = capabilityOf(s);
    if (cap === 'push' && websocketApiId) {
      s.Resource = {
        'Fn::Sub': `arn:\${AWS::Partition}:execute-api:\${AWS::Region}:\${AWS::AccountId}:\${${websocketApiId}}/*`,
      };
    }
    byCap[cap] ??= [];
    byCap[cap].push(s);
  }
  const roles = {};
  for (const [id, fn] of Object.entries(resources)) {
    if (fn.Type !== 'AWS::Lambda::Function') continue;
    const caps = capabilitiesOf(servicePath, String(fn.Properties.Handler));
    const rid = roleId(caps);
    if (!roles[rid]) {
      roles[rid] = [];
      const role = structuredClone(base);
      delete role.Properties.RoleName; // CloudFormation names it: no collision between stages or regions
      role.Properties.Policies[0].PolicyDocument.Statement = [
        ...(byCap.base ?? []),
        ...caps.flatMap((c) => byCap[c] ?? []),
      ];
      resources[rid] = role;
    }
    roles[rid].push(id);
    fn.Properties.Role = { 'Fn::GetAtt': [rid, 'Arn'] };
    fn.DependsOn = [...new Set([...(fn.DependsOn ?? []).filter((d) => d !== 'IamRoleLambdaExecution'), rid])];
  }
  delete resources.IamRoleLambdaExecution;
  // Whatever else named the one role (policies attached to it) names every role now, or, when the policy's
  // Metadata.Functions lists its functions (the failed-jobs queue, operations.cjs), the roles of those.
  const roleOf = (fnId) => resources[fnId]?.Properties?.Role?.['Fn::GetAtt']?.[0];
  for (const r of Object.values(resources)) {
    if (r.Type !== 'AWS::IAM::Policy') continue;
    if (!(r.Properties.Roles ?? []).some((x) => x?.Ref === 'IamRoleLambdaExecution')) continue;
    const only = r.Metadata?.Functions;
    const names = only ? [...new Set(only.map(roleOf).filter(Boolean))] : Object.keys(roles);
    r.Properties.Roles = names.map((n) => ({ Ref: n }));
  }
  // A custom resource runs its function as soon as both exist: it waits for the policies of that role too
  // (CloudFormation creates resources in parallel unless told; DependsOn attribute reference).
  for (const r of Object.values(resources)) {
    if (!String(r.Type).startsWith('Custom::')) continue;
    const role = roleOf(r.Properties?.ServiceToken?.['Fn::GetAtt']?.[0]);
    const policies = Object.entries(resources)
      .filter(([, p]) => p.Type === 'AWS::IAM::Policy')
      .filter(([, p]) => (p.Properties.Roles ?? []).some((x) => x?.Ref === role))
      .map(([id]) => id);
    r.DependsOn = [...new Set([...[].concat(r.DependsOn ?? []), ...policies])];
  }
  return { roles };
}

class FunctionRolesPlugin {
  constructor(serverless) {
    this.serverless = serverless;
    // After serverless.yml's `resources` (DatabaseAccessPolicy) are merged, before the nested stacks.
    this.hooks = { 'after:aws:package:finalize:mergeCustomProviderResources': () => this.apply() };
  }

  apply() {
    const sls = this.serverless;
    const resources = sls.service.provider.compiledCloudFormationTemplate.Resources;
    let result;
    try {
      result = applyRoles(
        resources,
        sls.config.servicePath,
        resources.WebsocketsApi ? 'WebsocketsApi' : null,
      );
    } catch (e) {
      throw new sls.classes.Error(e.message);
    }
    const summary = Object.entries(result.roles).map(([r, fns]) => `${r} ${fns.length}`);
    sls.cli.log(`function-roles: ${summary.join(', ')}`);
  }
}

module.exports = FunctionRolesPlugin;
module.exports.applyRoles = applyRoles;
module.exports.capabilityOf = capabilityOf;
