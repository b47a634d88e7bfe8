'use strict';
// Not a plugin: the CORS_ORIGINS setting as the plugins read it (preflight-credentials.cjs and the local
// preflight, local/offline/cors.cjs): comma-separated origins (`scheme://host[:port]`), the same list
// lib/http/middleware/cors.ts reads at run time. Anything else is a deploy-time error, because the origins
// are written into API Gateway's response templates.

const ORIGIN = /^https?:\/\/[A-Za-z0-9.-]+(:\d{1,5})?$/;

function allowedOrigins(value) {
  const list = String(value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const o of list) {
    if (!ORIGIN.test(o))
      throw new Error(`CORS_ORIGINS: ${JSON.stringify(o)} is not an origin (scheme://host[:port])`);
  }
  return list;
}

module.exports = { allowedOrigins };
