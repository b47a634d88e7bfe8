'use strict';
// API Gateway's own answers (no Lambda ran) in the service's shape: `{status:'failure', message}` JSON,
// `Access-Control-Allow-Origin: *` so a browser app can read them, and `Retry-After` where waiting helps
// (docs/deploying.md, "The gateway's own answers"). Used by serverless/plugins/deployment.cjs.
//
// - THROTTLED (stage throttling): 429 with Retry-After.
// - INTEGRATION_FAILURE: API Gateway could not invoke the function. A function at its reserved
//   concurrency is refused by Lambda with 429, which a proxy integration turns into this response (by
//   default a bare 500/504); it becomes 503 with Retry-After and a message saying the service is busy.
// - DEFAULT_4XX / DEFAULT_5XX: the same body shape and CORS header for anything else the gateway answers.

const RESPONSES = [
  {
    type: 'THROTTLED',
    status: '429',
    retry: '1',
    message: 'Too many requests: the request rate limit was reached; retry shortly.',
  },
  {
    type: 'INTEGRATION_FAILURE',
    status: '503',
    retry: '2',
    message: 'The service is busy (its concurrency limit was reached) or could not run; retry shortly.',
  },
  { type: 'DEFAULT_4XX', message: '$context.error.messageString' },
  { type: 'DEFAULT_5XX', message: '$context.error.messageString' },
];

function gatewayResponses(restApiId) {
  const out = {};
  for (const r of RESPONSES) {
    const id = `GatewayResponse${r.type.replace(/(^|_)([A-Z0-9])([A-Z0-9]*)/g, (_, __, a, b) => a + b.toLowerCase())}`;
    const headers = { 'gatewayresponse.header.Access-Control-Allow-Origin': "'*'" };
    if (r.retry) headers['gatewayresponse.header.Retry-After'] = `'${r.retry}'`;
    // A literal message is JSON-quoted; $context.error.messageString is already a quoted JSON string.
    const message = r.message.startsWith('$') ? r.message : JSON.stringify(r.message);
    out[id] = {
      Type: 'AWS::ApiGateway::GatewayResponse',
      Properties: {
        RestApiId: restApiId,
        ResponseType: r.type,
        ...(r.status ? { StatusCode: r.status } : {}),
        ResponseParameters: headers,
        ResponseTemplates: { 'application/json': `{"status":"failure","message":${message}}` },
      },
    };
  }
  return out;
}

module.exports = { gatewayResponses };
