import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { EndpointContext } from '#lib/http/middleware/types.ts';

/** An API Gateway (REST, payload v1) event as serverless-offline and API Gateway send it. */
export function fakeEvent(over: Partial<APIGatewayProxyEvent> = {}): APIGatewayProxyEvent {
  return {
    httpMethod: 'GET',
    path: '/api/test',
    resource: '/api/test',
    headers: {},
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: null,
    isBase64Encoded: false,
    requestContext: { requestId: 'gw-1' } as APIGatewayProxyEvent['requestContext'],
    ...over,
  };
}

/**
 * A Lambda context with a fixed request id (no `getRemainingTimeInMillis`: middy's timeout stays off); the
 * middlewares under test fill in the endpoint fields.
 */
export function fakeContext(): EndpointContext {
  return { awsRequestId: 'req-1', functionName: 'test' } as EndpointContext;
}

/** The whole proxy result of a failure, as `errorResponse` builds it. */
export function failureResult(statusCode: number, message: string) {
  return {
    statusCode,
    headers: { 'Content-Type': 'application/json; charset=utf-8' },
    multiValueHeaders: undefined,
    body: JSON.stringify({ status: 'failure', message }),
  };
}
