'use strict';
// Local serverless plugin: the preflight (OPTIONS) answers of API Gateway echo a CORS_ORIGINS origin with
// credentials, so a browser on that origin can send credentialed preflighted requests
// (docs/auth.md, "CORS"). It changes the CloudFormation template only when CORS_ORIGINS is set.
//
// `cors: true` makes every resource's OPTIONS method an API Gateway MOCK that answers
// `Access-Control-Allow-Origin: *` and no `Access-Control-Allow-Credentials`, so a browser refuses a JSON
// POST with `credentials: 'include'` from an allowed origin. serverless's own `cors.origins` cannot fix that
// without breaking everyone else: its default Allow-Origin becomes the first listed origin instead of `*`.
// This plugin keeps the mock's `*` for every other origin and adds a response template that, for an
// Origin equal to one of CORS_ORIGINS (exact match, as lib/http/middleware/cors.ts decides), echoes it
// with `Access-Control-Allow-Credentials: true` and `Vary: Origin`. serverless-offline's preflight
// (local/offline/cors.cjs) answers the same locally.

const { allowedOrigins } = require('./corsOrigins.cjs');

/** The VTL of the OPTIONS integration response: the listed origins echoed with credentials. */
function responseTemplate(origins) {
  const test = origins.map((o) => `$origin == "${o}"`).join(' || ');
  return [
    '#set($origin = $input.params("Origin"))',
    '#if($origin == "") #set($origin = $input.params("origin")) #end',
    `#if(${test})`,
    '#set($context.responseOverride.header.Access-Control-Allow-Origin = $origin)',
    '#set($context.responseOverride.header.Access-Control-Allow-Credentials = "true")',
    '#set($context.responseOverride.header.Vary = "Origin")',
    '#end',
  ].join('\n');
}

class PreflightCredentialsPlugin {
  constructor(serverless) {
    this.serverless = serverless;
    this.hooks = { 'before:package:finalize': () => this.apply() };
  }

  apply() {
    const sls = this.serverless;
    const origins = allowedOrigins(sls.service.provider?.environment?.CORS_ORIGINS);
    if (!origins.length) return;
    const resources = sls.service.provider.compiledCloudFormationTemplate.Resources;
    let n = 0;
    for (const r of Object.values(resources)) {
      const p = r.Properties;
      if (
        r.Type !== 'AWS::ApiGateway::Method' ||
        p?.HttpMethod !== 'OPTIONS' ||
        p.Integration?.Type !== 'MOCK'
      )
        continue;
      for (const m of p.MethodResponses ?? []) {
        m.ResponseParameters ??= {};
        m.ResponseParameters['method.response.header.Access-Control-Allow-Credentials'] = true;
        m.ResponseParameters['method.response.header.Vary'] = true;
      }
      for (const ir of p.Integration.IntegrationResponses ?? []) {
        ir.ResponseTemplates = { ...ir.ResponseTemplates, 'application/json': responseTemplate(origins) };
      }
      n++;
    }
    sls.cli.log(
      `preflight-credentials: ${n} preflight methods echo ${origins.length} origin(s) with credentials`,
    );
  }
}

module.exports = PreflightCredentialsPlugin;
