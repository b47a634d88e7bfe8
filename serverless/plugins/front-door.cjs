'use strict';
// Local serverless plugin: the front door (docs/deploying.md, "The front door"). One CloudFront
// distribution serves, on one HTTPS host, what the MMGIS web client needs from one origin:
//
// - `/api/*`     → the REST API (stage path), every method; nothing cached by CloudFront (managed policy
//                  CachingDisabled) and every viewer header, cookie and query string passed on (managed
//                  origin request policy AllViewerExceptHostHeader: API Gateway needs its own Host). The
//                  REST API's stage cache (serverless/plugins/gateway-cache.cjs) keys and answers exactly
//                  as without CloudFront, and no compression by CloudFront, so ETags pass as sent.
// - `/API/*`     → the same, after the viewer-request CloudFront Function rewrote `/API/` to `/api/`: the
//                  MMGIS client's upper-case calls (docs/contract.md, section 1). The REST API holds each
//                  route once; serverless/plugins/upper-api-routes.cjs adds the twins under npm start only.
// - `/ws`, `/ws/*` → the WebSocket API (stage path), the function rewriting the path to `/`; pages and
//                  clients open `wss://<host>/ws/` (MMGIS's WEBSOCKET_ROOT_PATH=/ws).
// - `/assets/*`  → the REST API's page function, cached by CloudFront (CachingOptimized: names are
//                  content-hashed and immutable), compressed.
// - default      → the REST API: the pages (`/`, `/configure`), not cached (HTML is `no-cache` + ETag).
// - `/Missions/*` and the MMGIS client's static folders → S3 buckets with origin access control
//                  (serverless/plugins/frontDoorOrigins.cjs).
//
// The public origin `https://<distribution domain>` is appended to every function's CORS_ORIGINS (the
// same-origin check of docs/auth.md sees API Gateway's host behind CloudFront) and the page function's
// WEBSOCKET_URL is `wss://<distribution domain>/ws/` unless set. Output `PublicUrl`: the one URL.
//
// The REST API's endpoint becomes REGIONAL (CloudFront is the edge). On for every stage but `local` (custom.frontDoor.enabled: `auto`); `--param="frontDoor=false"` leaves it
// out, `true` forces it.

/** AWS managed CloudFront policies (their ids are fixed by AWS). */
const CACHING_DISABLED = '4135ea2d-6df8-44a3-9df3-4b5a84be39ad';
const CACHING_OPTIMIZED = '658327ea-f89d-4fab-a63d-7e88639e58f6';
const ALL_VIEWER_EXCEPT_HOST = 'b689b0a8-53d0-40ab-baf2-68738e2966ac';

/** The viewer-request function (cloudfront-js-2.0): `/API/…` → `/api/…`, `/ws…` → `/`. */
const VIEWER_REQUEST = `function handler(event) {
  var request = event.request;
  var uri = request.uri;
  if (uri === '/API' || uri.indexOf('/API/') === 0) request.uri = '/api' + uri.slice(4);
  else if (uri === '/ws' || uri.indexOf('/ws/') === 0) request.uri = '/';
  return request;
}
`;

const REST_ORIGIN = 'RestApi';
const WS_ORIGIN = 'WebSocketApi';
const {
  aliasRecords,
  edgeSettings,
  originLockResources,
  signingVariables,
  webAclResources,
} = require('./frontDoorEdge.cjs');
const { bucketOrigins, sitePagesAccess } = require('./frontDoorOrigins.cjs');

const ALL_METHODS = ['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE'];

function enabled(value, stage) {
  const v = String(value ?? 'auto').toLowerCase();
  if (v === 'auto') return stage !== 'local';
  if (v === 'true' || v === 'false') return v === 'true';
  throw new Error(`frontDoor=${value}: true, false or auto`);
}

/** The front door's resources for a REST API `restApiId` and a WebSocket API `wsApiId` of `stage`. */
function frontDoorResources({
  name,
  stage,
  priceClass,
  restApiId,
  wsApiId,
  domainName = '',
  certificateArn = '',
  webAclArn = null,
  originHeaders = [],
}) {
  const apiOrigin = (id, apiRef, headers = []) => ({
    Id: id,
    ...(headers.length > 0 ? { OriginCustomHeaders: headers } : {}),
    // biome-ignore lint/suspicious/noTemplateCurlyInString: CloudFormation's Fn::Sub syntax, not JavaScript's.
    DomainName: { 'Fn::Sub': ['${Api}.execute-api.${AWS::Region}.${AWS::URLSuffix}', { Api: apiRef }] },
    OriginPath: `/${stage}`,
    CustomOriginConfig: { OriginProtocolPolicy: 'https-only', OriginSSLProtocols: ['TLSv1.2'] },
  });
  const viewerRequest = [
    { EventType: 'viewer-request', FunctionARN: { 'Fn::GetAtt': ['FrontDoorViewerRequest', 'FunctionARN'] } },
  ];
  const api = (PathPattern, extra = {}) => ({
    PathPattern,
    TargetOriginId: REST_ORIGIN,
    ViewerProtocolPolicy: 'redirect-to-https',
    AllowedMethods: ALL_METHODS,
    CachedMethods: ['GET', 'HEAD'],
    CachePolicyId: CACHING_DISABLED,
    OriginRequestPolicyId: ALL_VIEWER_EXCEPT_HOST,
    Compress: false,
    ...extra,
  });
  const ws = (PathPattern) => ({
    PathPattern,
    TargetOriginId: WS_ORIGIN,
    ViewerProtocolPolicy: 'https-only',
    AllowedMethods: ['GET', 'HEAD'],
    CachePolicyId: CACHING_DISABLED,
    OriginRequestPolicyId: ALL_VIEWER_EXCEPT_HOST,
    Compress: false,
    FunctionAssociations: viewerRequest,
  });
  const behaviors = [api('/api/*'), api('/API/*', { FunctionAssociations: viewerRequest })];
  if (wsApiId) behaviors.push(ws('/ws'), ws('/ws/*'));
  behaviors.push({
    PathPattern: '/assets/*',
    TargetOriginId: REST_ORIGIN,
    ViewerProtocolPolicy: 'redirect-to-https',
    AllowedMethods: ['GET', 'HEAD'],
    CachePolicyId: CACHING_OPTIMIZED,
    Compress: true,
  });
  const origins = [apiOrigin(REST_ORIGIN, { Ref: restApiId }, originHeaders)];
  if (wsApiId) origins.push(apiOrigin(WS_ORIGIN, { Ref: wsApiId }));
  return {
    FrontDoorViewerRequest: {
      Type: 'AWS::CloudFront::Function',
      Properties: {
        Name: `${name}-front-door`.slice(0, 64),
        AutoPublish: true,
        FunctionCode: VIEWER_REQUEST,
        FunctionConfig: {
          Comment: '/API/ → /api/, /ws → / (docs/deploying.md)',
          Runtime: 'cloudfront-js-2.0',
        },
      },
    },
    FrontDoorDistribution: {
      Type: 'AWS::CloudFront::Distribution',
      Properties: {
        DistributionConfig: {
          Comment: `${name}: pages, REST API and WebSocket API on one host`,
          Enabled: true,
          HttpVersion: 'http2and3',
          IPV6Enabled: true,
          PriceClass: priceClass,
          Origins: origins,
          DefaultCacheBehavior: {
            TargetOriginId: REST_ORIGIN,
            ViewerProtocolPolicy: 'redirect-to-https',
            AllowedMethods: ['GET', 'HEAD', 'OPTIONS'],
            CachedMethods: ['GET', 'HEAD'],
            CachePolicyId: CACHING_DISABLED,
            OriginRequestPolicyId: ALL_VIEWER_EXCEPT_HOST,
            Compress: false,
          },
          CacheBehaviors: behaviors,
          // A custom domain needs its ACM certificate in us-east-1, whatever the stack's region
          // (CloudFront "Requirements for using SSL/TLS certificates with CloudFront").
          ...(domainName
            ? {
                Aliases: [domainName],
                ViewerCertificate: {
                  AcmCertificateArn: certificateArn,
                  SslSupportMethod: 'sni-only',
                  MinimumProtocolVersion: 'TLSv1.2_2021',
                },
              }
            : { ViewerCertificate: { CloudFrontDefaultCertificate: true } }),
          ...(webAclArn ? { WebACLId: webAclArn } : {}),
        },
      },
    },
  };
}

const PUBLIC_HOST = { 'Fn::GetAtt': ['FrontDoorDistribution', 'DomainName'] };

/** CORS_ORIGINS of a function's environment with the public origin appended. */
function withPublicOrigin(current, host = PUBLIC_HOST) {
  const origin = ['https://', host];
  const text = typeof current === 'string' ? current.trim() : '';
  return { 'Fn::Join': ['', text ? [`${text},`, ...origin] : origin] };
}

class FrontDoorPlugin {
  constructor(serverless) {
    this.serverless = serverless;
    this.hooks = { 'before:package:finalize': () => this.apply() };
  }

  apply() {
    const sls = this.serverless;
    const provider = sls.getProvider('aws');
    const stage = provider.getStage();
    const options = sls.service.custom?.frontDoor ?? {};
    let on;
    try {
      on = enabled(options.enabled, stage);
    } catch (e) {
      throw new sls.classes.Error(`--param="${e.message}"`);
    }
    if (!on) return;
    const template = sls.service.provider.compiledCloudFormationTemplate;
    const resources = template.Resources;
    if (!resources.ApiGatewayRestApi) return;
    const region = provider.getRegion();
    const name = `${sls.service.service}-${stage}-${region}`;
    let edge;
    try {
      edge = edgeSettings(options, region);
    } catch (e) {
      throw new sls.classes.Error(`front-door: ${e.message} (docs/deploying.md, "The front door")`);
    }
    const extra = {};
    let originHeaders = [];
    if (edge.originLock && resources.ApiGatewayStage) {
      const lock = originLockResources('ApiGatewayRestApi', 'ApiGatewayStage', resources);
      Object.assign(extra, lock.resources);
      originHeaders = [lock.header];
    }
    let webAclArn = edge.wafAclArn || null;
    if (edge.waf) {
      Object.assign(extra, webAclResources(name, edge.wafRateLimit, edge.wafWindow));
      webAclArn = { 'Fn::GetAtt': ['FrontDoorWebAcl', 'Arn'] };
    }
    if (edge.domainName && edge.hostedZoneId)
      Object.assign(extra, aliasRecords(edge.domainName, edge.hostedZoneId));
    // CloudFront Function names are global to the account: the region keeps two regions' stages apart.
    const added = frontDoorResources({
      name,
      stage,
      priceClass: options.priceClass ?? 'PriceClass_100',
      restApiId: 'ApiGatewayRestApi',
      wsApiId: resources.WebsocketsApi ? 'WebsocketsApi' : null,
      domainName: edge.domainName,
      certificateArn: edge.certificateArn,
      webAclArn,
      originHeaders,
    });
    Object.assign(resources, added, extra);
    const host = edge.domainName || PUBLIC_HOST;
    const env = sls.service.provider.environment ?? {};
    const data = {
      MISSION_DATA_BUCKET: env.MISSION_DATA_BUCKET,
      MISSION_DATA_PREFIX: env.MISSION_DATA_PREFIX,
    };
    const maxAge =
      resources.MissionsFileLambdaFunction?.Properties.Environment?.Variables?.MISSION_FILES_MAX_AGE_S;
    const s3 = bucketOrigins({
      name,
      auth: env.AUTH,
      env: data,
      uploadBucket: sls.service.custom?.uploadBucket,
      missionBucket: sls.service.custom?.missionDataBucket,
      keySecretArn: edge.missionKeySecretArn,
      maxAge: /^\d+$/.test(String(maxAge ?? '')) ? Number(maxAge) : 3600,
      restOrigin: REST_ORIGIN,
    });
    const config = added.FrontDoorDistribution.Properties.DistributionConfig;
    config.Origins.push(...s3.origins);
    config.CacheBehaviors.push(...s3.behaviors);
    Object.assign(resources, s3.resources);
    if (resources.FrontDoorMissionKeyGroup) signingVariables(resources, edge.missionKeySecretArn);
    sitePagesAccess(resources);
    // Behind CloudFront the REST API is regional: an edge-optimized one would put a second CloudFront
    // distribution (API Gateway's own) behind ours.
    resources.ApiGatewayRestApi.Properties.EndpointConfiguration = { Types: ['REGIONAL'] };
    for (const r of Object.values(resources)) {
      if (r.Type !== 'AWS::Lambda::Function') continue;
      const vars = r.Properties.Environment?.Variables;
      if (!vars) continue;
      vars.CORS_ORIGINS = withPublicOrigin(vars.CORS_ORIGINS, host);
      // Links (TileJSON tiles, OGC links, paging, job Locations) name the public host, not API Gateway's.
      if (!vars.PUBLIC_URL) vars.PUBLIC_URL = { 'Fn::Join': ['', ['https://', host]] };
      // The mission data root CloudFront reads is the functions' too.
      for (const k of Object.keys(data)) if (k in vars && !vars[k]) vars[k] = data[k];
      if ('WEBSOCKET_URL' in vars && !vars.WEBSOCKET_URL && resources.WebsocketsApi) {
        vars.WEBSOCKET_URL = { 'Fn::Join': ['', ['wss://', host, '/ws/']] };
      }
    }
    template.Outputs ??= {};
    template.Outputs.PublicUrl = {
      Description: 'The one public URL: the pages, /api, /API and the WebSocket (/ws/)',
      Value: { 'Fn::Join': ['', ['https://', host]] },
    };
    Object.assign(template.Outputs, s3.outputs);
    template.Outputs.DistributionDomainName = {
      Description: "The CloudFront domain (the target of a custom domain's DNS record)",
      Value: PUBLIC_HOST,
    };
    sls.cli.log(
      `front-door: CloudFront distribution with ${config.CacheBehaviors.length} behaviors; /Missions/* from the ${s3.missions}`,
    );
  }
}

module.exports = FrontDoorPlugin;
module.exports.frontDoorResources = frontDoorResources;
module.exports.VIEWER_REQUEST = VIEWER_REQUEST;
