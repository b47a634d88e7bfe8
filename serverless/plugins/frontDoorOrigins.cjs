'use strict';
// The front door's S3 origins (serverless/plugins/front-door.cjs; docs/mission-site.md, "Deployed";
// docs/deploying.md, "The front door"): files CloudFront serves from buckets, with no function per request.
//
// - `/Missions/*` → the mission data bucket (MISSION_DATA_BUCKET, else the uploads bucket) under
//   MISSION_DATA_PREFIX (default `Missions`): `/Missions/MSL/a.png` is the key `<prefix>/MSL/a.png`, the key
//   the missionsFile function reads, so the prefix must end in `Missions` (the origin path is the part
//   before it). Keyed on the path alone; `/Missions/*_time_*` stays on the function (placed first): only it
//   resolves MMGIS's `?time=` folders. Under AUTH=local the behaviour trusts the stack's key group: a
//   browser needs the signed cookies the users functions issue for the mission (lib/missionFiles/
//   edgeCookies.ts), whose private key is the `privateKey` of the secret `missionKeySecretArn` and whose
//   public key is that secret's `publicKey`. Under AUTH=local without that secret, `/Missions/*` stays on
//   the function (private by its own check).
// - The MMGIS client's static folders (`/build/*`, `/public/*`, `/config/*`, ...) → a site bucket of the
//   stack, filled with `aws s3 sync`. `/` and `/configure-beta` stay on the functions that render them.
//
// The page functions (`/`, `/configure-beta`) render MMGIS's pages from the build's templates in the site
// bucket (sitePagesAccess): MMGIS_CLIENT_BUCKET names it, and their role may read those keys alone.
//
// Both origins use one origin access control (SigV4, always signed); each bucket's policy allows
// s3:GetObject to cloudfront.amazonaws.com for this distribution only (AWS:SourceArn), under the prefix it
// serves. A bucket named from outside the stack gets no policy from it: the output MissionDataBucketPolicy
// holds the statement to add.

const CACHING_OPTIMIZED = '658327ea-f89d-4fab-a63d-7e88639e58f6';
const CACHING_DISABLED = '4135ea2d-6df8-44a3-9df3-4b5a84be39ad';
const ALL_VIEWER_EXCEPT_HOST = 'b689b0a8-53d0-40ab-baf2-68738e2966ac';

/** Where MMGIS's server mounts the client's static folders (lib/web/mmgis/staticFiles.ts). */
const SITE_PATHS = [
  '/build/*',
  '/public/*',
  '/config/*',
  '/configure/build/*',
  '/configure/public/*',
  '/documentation/*',
  '/docs/helps/*',
  '/README.md',
];
const { keyResources } = require('./frontDoorEdge.cjs');

const MISSION_ORIGIN = 'MissionData';
const SITE_ORIGIN = 'MmgisSite';

/** The distribution's ARN in CloudFormation's Fn::Sub syntax. */
const DISTRIBUTION_ARN = `arn:\${AWS::Partition}:cloudfront::\${AWS::AccountId}:distribution/\${FrontDoorDistribution}`;

/** The prefix's origin path: '' for `Missions`, `/data` for `data/Missions`; null when it does not end in `Missions`. */
function originPathOf(prefix) {
  const parts = prefix.split('/').filter(Boolean);
  if (parts.at(-1) !== 'Missions') return null;
  return parts.length > 1 ? `/${parts.slice(0, -1).join('/')}` : '';
}

/** A policy statement letting this distribution read `resource` (a Fn::Sub text). */
function cloudFrontRead(sid, resource) {
  return {
    Sid: sid,
    Effect: 'Allow',
    Principal: { Service: 'cloudfront.amazonaws.com' },
    Action: 's3:GetObject',
    Resource: { 'Fn::Sub': resource },
    Condition: { StringEquals: { 'AWS:SourceArn': { 'Fn::Sub': DISTRIBUTION_ARN } } },
  };
}

const s3Origin = (Id, DomainName, OriginPath = '') => ({
  Id,
  DomainName,
  ...(OriginPath ? { OriginPath } : {}),
  S3OriginConfig: { OriginAccessIdentity: '' },
  OriginAccessControlId: { 'Fn::GetAtt': ['FrontDoorOriginAccessControl', 'Id'] },
});

/**
 * The S3 origins for the distribution `FrontDoorDistribution` of a template whose `resources` are given:
 * `{ resources, origins, behaviors, outputs, missions }` where `behaviors` go after the front door's own
 * and `missions` says where `/Missions/*` is served ('bucket', 'bucket, signed' or why 'function').
 * `env` holds the functions' MISSION_DATA_* values; the defaults it fills are written back into `env`.
 */
function bucketOrigins({ name, auth, env, uploadBucket, missionBucket, keySecretArn, maxAge, restOrigin }) {
  const out = { resources: {}, origins: [], behaviors: [], outputs: {}, missions: 'function' };
  out.resources.FrontDoorOriginAccessControl = {
    Type: 'AWS::CloudFront::OriginAccessControl',
    Properties: {
      OriginAccessControlConfig: {
        Name: `${name}-s3`.slice(0, 64),
        Description: 'CloudFront reads the mission data and MMGIS site buckets (docs/mission-site.md)',
        OriginAccessControlOriginType: 's3',
        SigningBehavior: 'always',
        SigningProtocol: 'sigv4',
      },
    },
  };

  // The MMGIS client's static folders.
  out.resources.FrontDoorSiteBucket = {
    Type: 'AWS::S3::Bucket',
    Properties: {
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
    },
  };
  out.resources.FrontDoorSiteBucketPolicy = {
    Type: 'AWS::S3::BucketPolicy',
    Properties: {
      Bucket: { Ref: 'FrontDoorSiteBucket' },
      PolicyDocument: {
        Version: '2012-10-17',
        Statement: [
          cloudFrontRead('CloudFrontReadsTheSite', `arn:\${AWS::Partition}:s3:::\${FrontDoorSiteBucket}/*`),
        ],
      },
    },
  };
  out.origins.push(s3Origin(SITE_ORIGIN, { 'Fn::GetAtt': ['FrontDoorSiteBucket', 'RegionalDomainName'] }));
  for (const PathPattern of SITE_PATHS)
    out.behaviors.push({
      PathPattern,
      TargetOriginId: SITE_ORIGIN,
      ViewerProtocolPolicy: 'redirect-to-https',
      AllowedMethods: ['GET', 'HEAD'],
      CachedMethods: ['GET', 'HEAD'],
      CachePolicyId: CACHING_OPTIMIZED,
      Compress: true,
    });
  out.outputs.SiteBucket = {
    Description: "The bucket of the MMGIS client's static folders (docs/deploying.md, aws s3 sync)",
    Value: { Ref: 'FrontDoorSiteBucket' },
  };

  // The mission files.
  const bucket = String(env.MISSION_DATA_BUCKET || missionBucket || '').trim();
  const prefix = String(env.MISSION_DATA_PREFIX || 'Missions').replace(/^\/+|\/+$/g, '');
  const originPath = originPathOf(prefix);
  const signed = auth === 'local';
  let why = '';
  if (!bucket) why = 'no mission data bucket';
  else if (originPath === null) why = `MISSION_DATA_PREFIX '${prefix}' does not end in Missions`;
  else if (signed && !keySecretArn) why = 'AUTH=local needs missionKeySecretArn';
  if (why) {
    out.missions = `function (${why})`;
    return out;
  }

  const ours = bucket === uploadBucket;
  if (!env.MISSION_DATA_BUCKET) env.MISSION_DATA_BUCKET = ours ? { Ref: 'S3BucketUploads' } : bucket;
  if (!env.MISSION_DATA_PREFIX) env.MISSION_DATA_PREFIX = prefix;
  // biome-ignore lint/suspicious/noTemplateCurlyInString: CloudFormation's Fn::Sub syntax.
  const arnText = `arn:\${AWS::Partition}:s3:::${ours ? '${S3BucketUploads}' : bucket}/${prefix}/*`;
  const read = cloudFrontRead('CloudFrontReadsMissionFiles', arnText);
  if (ours) {
    out.resources.FrontDoorMissionDataPolicy = {
      Type: 'AWS::S3::BucketPolicy',
      Properties: {
        Bucket: { Ref: 'S3BucketUploads' },
        PolicyDocument: { Version: '2012-10-17', Statement: [read] },
      },
    };
  } else {
    out.outputs.MissionDataBucketPolicy = {
      Description: `The statement to add to the policy of ${bucket} (docs/deploying.md)`,
      Value: {
        'Fn::Sub': JSON.stringify({
          ...read,
          Resource: arnText,
          Condition: { StringEquals: { 'AWS:SourceArn': DISTRIBUTION_ARN } },
        }),
      },
    };
  }
  const domain = ours
    ? { 'Fn::GetAtt': ['S3BucketUploads', 'RegionalDomainName'] }
    : { 'Fn::Sub': `${bucket}.s3.\${AWS::Region}.\${AWS::URLSuffix}` };
  out.origins.push(s3Origin(MISSION_ORIGIN, domain, originPath));

  out.resources.FrontDoorMissionFilesCachePolicy = {
    Type: 'AWS::CloudFront::CachePolicy',
    Properties: {
      CachePolicyConfig: {
        Name: `${name}-mission-files`.slice(0, 128),
        Comment: 'Mission files: keyed on the path alone (docs/mission-site.md)',
        MinTTL: 0,
        DefaultTTL: maxAge,
        MaxTTL: 86400,
        ParametersInCacheKeyAndForwardedToOrigin: {
          EnableAcceptEncodingGzip: true,
          EnableAcceptEncodingBrotli: true,
          HeadersConfig: { HeaderBehavior: 'none' },
          CookiesConfig: { CookieBehavior: 'none' },
          QueryStringsConfig: { QueryStringBehavior: 'none' },
        },
      },
    },
  };
  // What the browser is told (CloudFront's own cache follows the cache policy): as the function answers.
  out.resources.FrontDoorMissionFilesHeaders = {
    Type: 'AWS::CloudFront::ResponseHeadersPolicy',
    Properties: {
      ResponseHeadersPolicyConfig: {
        Name: `${name}-mission-files`.slice(0, 128),
        Comment: 'Mission files: the Cache-Control of docs/mission-site.md',
        CustomHeadersConfig: {
          Items: [
            {
              Header: 'Cache-Control',
              Value: `${signed ? 'private' : 'public'}, max-age=${maxAge}`,
              Override: true,
            },
          ],
        },
        SecurityHeadersConfig: { ContentTypeOptions: { Override: true } },
      },
    },
  };
  const time = {
    PathPattern: '/Missions/*_time_*',
    TargetOriginId: restOrigin,
    ViewerProtocolPolicy: 'redirect-to-https',
    AllowedMethods: ['GET', 'HEAD', 'OPTIONS'],
    CachedMethods: ['GET', 'HEAD'],
    CachePolicyId: CACHING_DISABLED,
    OriginRequestPolicyId: ALL_VIEWER_EXCEPT_HOST,
    Compress: false,
  };
  const files = {
    PathPattern: '/Missions/*',
    TargetOriginId: MISSION_ORIGIN,
    ViewerProtocolPolicy: 'redirect-to-https',
    AllowedMethods: ['GET', 'HEAD'],
    CachedMethods: ['GET', 'HEAD'],
    CachePolicyId: { Ref: 'FrontDoorMissionFilesCachePolicy' },
    ResponseHeadersPolicyId: { Ref: 'FrontDoorMissionFilesHeaders' },
    Compress: true,
    ...(signed ? { TrustedKeyGroups: [{ Ref: 'FrontDoorMissionKeyGroup' }] } : {}),
  };
  out.behaviors.unshift(time, files);
  out.outputs.MissionDataLocation = {
    Description: 'Where /Missions/<mission>/<path> is read: aws s3 sync Missions/ to it (docs/deploying.md)',
    Value: ours ? { 'Fn::Sub': `s3://\${S3BucketUploads}/${prefix}/` } : `s3://${bucket}/${prefix}/`,
  };
  out.missions = 'bucket';
  if (signed) {
    Object.assign(out.resources, keyResources(name, keySecretArn));
    out.missions = 'bucket, signed cookies';
  }
  return out;
}

/** The keys the page functions read from the site bucket (lib/web/mmgis/build.ts, BUCKET_KEYS). */
const SITE_PAGE_KEYS = [
  'build/index.pug',
  'configure/build/index.pug',
  'views/login.pug',
  'views/adminlogin.pug',
  'package.json',
];

/**
 * The page functions read the MMGIS build's templates from the site bucket: each function whose environment
 * declares MMGIS_CLIENT_BUCKET empty gets the site bucket, and the functions' statements (shared out by
 * serverless/plugins/function-roles.cjs) one more, s3:GetObject on those keys alone, which goes to the
 * roles of the bundles that read them (capability `sitePages`).
 */
function sitePagesAccess(resources) {
  const statements = resources.IamRoleLambdaExecution?.Properties?.Policies?.[0]?.PolicyDocument?.Statement;
  if (!statements || !resources.FrontDoorSiteBucket) return;
  for (const r of Object.values(resources)) {
    const vars = r.Type === 'AWS::Lambda::Function' ? r.Properties.Environment?.Variables : undefined;
    if (vars && 'MMGIS_CLIENT_BUCKET' in vars && !vars.MMGIS_CLIENT_BUCKET)
      vars.MMGIS_CLIENT_BUCKET = { Ref: 'FrontDoorSiteBucket' };
  }
  statements.push({
    Sid: 'MmgisSitePages',
    Effect: 'Allow',
    Action: 's3:GetObject',
    Resource: SITE_PAGE_KEYS.map((k) => ({
      'Fn::Sub': `arn:\${AWS::Partition}:s3:::\${FrontDoorSiteBucket}/${k}`,
    })),
  });
}

module.exports = { bucketOrigins, originPathOf, sitePagesAccess, SITE_PAGE_KEYS, SITE_PATHS };
