'use strict';
// Local serverless plugin: the uploads bucket's deployed name, and the permission that lets S3 invoke
// its ingest function (docs/deploying.md, "The uploads bucket").
//
// - The name. S3 bucket names are global across every account of a partition (S3 "Bucket naming rules"),
//   so `mmgis-<stage>-uploads` would be taken by whoever deployed that stage first. Deployed, the bucket is
//   `<that name>-<account id>-<region>`: unique per account and region, and still fixed before the stack
//   exists, which the bucket's notification needs (its function's permission must name the bucket, and a
//   name left to CloudFormation would make the two depend on each other). Every string of the template
//   that names the bucket (the resource, the functions' UPLOAD_BUCKET and MISSION_DATA_BUCKET, the IAM
//   statements) is rewritten; `npm start` and serverless-s3-local keep the plain name. An UPLOAD_BUCKET set
//   in the deployer's environment is taken as it is.
// - The permission. Serverless derives the SourceArn of an s3 event's `AWS::Lambda::Permission` from the
//   event's bucket key (`uploads`), not from the bucket resource's BucketName. S3 checks that permission
//   when it stores the notification ("Amazon S3 verifies that the Lambda function permissions grant Amazon
//   S3 permission to invoke the function from the Amazon S3 bucket", PutBucketNotificationConfiguration),
//   so a wrong SourceArn fails the first deploy. Each S3 permission of a function that a bucket of the
//   template notifies gets that bucket's ARN and the account as SourceAccount.
// - `arn:aws:s3:` and `arn:aws:lambda:` written in serverless.yml become `arn:${AWS::Partition}:…`
//   (GovCloud and China).

const { settingIfSet } = require('../../scripts/settings.cjs');

const NAME_RULE = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** Deep-maps every value of `node` with `fn` (which returns undefined to descend further). */
function mapDeep(node, fn) {
  const replaced = fn(node);
  if (replaced !== undefined) return replaced;
  if (Array.isArray(node)) return node.map((x) => mapDeep(x, fn));
  if (node && typeof node === 'object') {
    const out = {};
    for (const [k, v] of Object.entries(node)) out[k] = mapDeep(v, fn);
    return out;
  }
  return node;
}

/**
 * Rewrites the template's `resources` in place: the bucket named `base` gets `deployedName` (a plain name,
 * or a Fn::Sub template of one), every S3 permission of a notified function names its bucket. Returns the
 * number of permissions rewritten.
 */
function applyBucketNames(resources, base, deployedName) {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: CloudFormation's Fn::Sub syntax.
  const partition = 'arn:${AWS::Partition}:';
  /** The text of a Fn::Sub template with the bucket renamed and `arn:aws:` on the stack's partition. */
  const subText = (text) =>
    text
      .replace(
        new RegExp(`^arn:aws:s3:::${base.replace(/[.]/g, '\\.')}(?=/|$)`),
        `arn:aws:s3:::${deployedName}`,
      )
      .replace(/^arn:aws:(s3|lambda):/, `${partition}$1:`);
  const rename = (value) => {
    if (value && typeof value === 'object' && !Array.isArray(value) && 'Fn::Sub' in value) {
      const arg = value['Fn::Sub'];
      if (typeof arg === 'string') return { 'Fn::Sub': subText(arg) };
      if (Array.isArray(arg) && typeof arg[0] === 'string') return { 'Fn::Sub': [subText(arg[0]), arg[1]] };
      return value;
    }
    if (typeof value !== 'string') return undefined;
    if (value === base) return { 'Fn::Sub': deployedName };
    // The bucket ARNs serverless.yml writes; an ARN given as a parameter (a cluster, a secret, a
    // certificate) names its own partition already.
    if (value.startsWith('arn:aws:s3:::')) return { 'Fn::Sub': subText(value) };
    return undefined;
  };
  const sub = (text) => ({ 'Fn::Sub': text });
  for (const [id, r] of Object.entries(resources)) resources[id] = mapDeep(r, rename);

  let fixed = 0;
  for (const bucket of Object.values(resources)) {
    if (bucket.Type !== 'AWS::S3::Bucket') continue;
    const configs = bucket.Properties?.NotificationConfiguration?.LambdaConfigurations ?? [];
    const name = bucket.Properties?.BucketName;
    if (!name || configs.length === 0) continue;
    const nameText = typeof name === 'string' ? name : name['Fn::Sub'];
    if (typeof nameText !== 'string')
      throw new Error('uploads-bucket: a notified bucket needs a literal name');
    for (const c of configs) {
      const fnId = c.Function?.['Fn::GetAtt']?.[0];
      for (const p of Object.values(resources)) {
        if (p.Type !== 'AWS::Lambda::Permission' || p.Properties.Principal !== 's3.amazonaws.com') continue;
        if (p.Properties.FunctionName?.['Fn::GetAtt']?.[0] !== fnId) continue;
        p.Properties.SourceArn = sub(`arn:\${AWS::Partition}:s3:::${nameText}`);
        p.Properties.SourceAccount = { Ref: 'AWS::AccountId' };
        fixed++;
      }
    }
  }
  return fixed;
}

class UploadsBucketPlugin {
  constructor(serverless) {
    this.serverless = serverless;
    // After serverless.yml's `resources` (the bucket) are merged in, before the nested stacks are split.
    this.hooks = { 'after:aws:package:finalize:mergeCustomProviderResources': () => this.apply() };
  }

  apply() {
    const sls = this.serverless;
    const provider = sls.getProvider('aws');
    const base = sls.service.custom?.uploadBucket;
    const resources = sls.service.provider.compiledCloudFormationTemplate.Resources;
    if (!base || !resources.S3BucketUploads) return;
    const chosen = (settingIfSet('UPLOAD_BUCKET') ?? '').trim() !== '';
    const region = provider.getRegion();
    const deployedName = chosen ? base : `${base}-\${AWS::AccountId}-${region}`;
    const longest = deployedName.replace(`\${AWS::AccountId}`, '123456789012');
    if (!NAME_RULE.test(longest) || longest.includes('..')) {
      throw new sls.classes.Error(
        `uploads-bucket: '${longest}' is not a valid S3 bucket name (3-63 lower-case letters, digits, dots ` +
          'and hyphens): choose a shorter, lower-case stage name, or set UPLOAD_BUCKET (docs/deploying.md).',
      );
    }
    const fixed = applyBucketNames(resources, base, deployedName);
    sls.cli.log(`uploads-bucket: ${deployedName}, ${fixed} S3 permission(s) naming it`);
  }
}

module.exports = UploadsBucketPlugin;
module.exports.applyBucketNames = applyBucketNames;
