import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { Principal } from '#lib/auth/principal.ts';
import type { Db } from '#lib/db/index.ts';

/** The parts of a request the endpoint function receives, as the middlewares left them. */
export interface RequestParts {
  query: Record<string, unknown>;
  path: Record<string, unknown>;
  body: unknown;
  /** The body text untouched, for `body: 'raw'` endpoints; otherwise null. */
  rawBody: string | null;
}

/**
 * The Lambda context as the stack fills it (middy's `setToContext` habit): the database, the caller and
 * the parsed request parts, each set by the middleware that owns it.
 */
export interface EndpointContext extends Context {
  db: Db;
  principal: Principal;
  parts: RequestParts;
  /** Set by the `raw` body parser: the body text untouched. */
  rawBody?: string | null;
  /** Set by the body parser: the body came as JSON or as a form (whose strings the validator coerces). */
  bodyEncoding?: 'json' | 'form';
}

/** The handler's result before `proxyResult` serializes it: an `HttpResponse`, a plain value, or already a proxy result. */
export type EndpointRequest = middy.Request<APIGatewayProxyEvent, unknown, Error, EndpointContext>;
export type EndpointMiddleware = middy.MiddlewareObj<APIGatewayProxyEvent, unknown, Error, EndpointContext>;

/** A response once `proxyResult` (or `errorResponse`) has built it. */
export function proxyResponse(request: EndpointRequest): APIGatewayProxyResult | undefined {
  const r = request.response as APIGatewayProxyResult | undefined;
  return r && typeof r === 'object' && typeof r.statusCode === 'number' && typeof r.body === 'string'
    ? r
    : undefined;
}

/** The request id: Lambda's, else API Gateway's, else `local`. */
export function requestIdOf(request: Pick<EndpointRequest, 'context' | 'event'>): string {
  return request.context?.awsRequestId ?? request.event?.requestContext?.requestId ?? 'local';
}
