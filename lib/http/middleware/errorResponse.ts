import type { APIGatewayProxyResult } from 'aws-lambda';
import { unavailableAnswer } from '#lib/db/connectionErrors.ts';
import { FunctionTimedOut, HttpError } from '#lib/errors.ts';
import { log } from '#lib/log.ts';
import { respond, toProxyResult } from '../response.ts';
import { type EndpointMiddleware, type EndpointRequest, requestIdOf } from './types.ts';

/** postgres.js: the statement was cancelled (statement timeout). */
const QUERY_CANCELED = '57014';

/**
 * The one error shape, `{status:'failure', message, ...extra}`, as middy's `http-error-handler` does it:
 * an `HttpError` keeps its status; a statement timeout or the function's own timeout is a 503; anything else is a 500 that names only
 * the request id (the error itself is logged with it).
 */
export function toErrorResult(error: unknown, requestId: string): APIGatewayProxyResult {
  if (error instanceof HttpError) {
    return toProxyResult(
      respond(error.statusCode, { status: 'failure', message: error.message, ...error.extra }),
    );
  }
  // A refused or lost connection that outlived its one retry (lib/db/connectionErrors.ts).
  const unavailable = unavailableAnswer(error);
  if (unavailable) {
    log('warn', 'database unavailable', { requestId, error: (error as Error)?.message });
    return toProxyResult(
      respond(
        unavailable.statusCode,
        { status: 'failure', message: unavailable.message },
        { headers: { 'Retry-After': String(unavailable.retryAfterSeconds) } },
      ),
    );
  }
  if (error instanceof FunctionTimedOut) {
    log('warn', 'the function timed out', { requestId });
    return toProxyResult(
      respond(503, { status: 'failure', message: error.message }, { headers: { 'Retry-After': '5' } }),
    );
  }
  if ((error as { code?: string })?.code === QUERY_CANCELED) {
    return toProxyResult(
      respond(503, {
        status: 'failure',
        message: 'The database took too long to answer; try a narrower request.',
      }),
    );
  }
  log('error', 'unhandled error', {
    requestId,
    error: error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : error,
  });
  return toProxyResult(
    respond(500, { status: 'failure', message: `Internal error (request ${requestId}).` }),
  );
}

export function errorResponse(): EndpointMiddleware {
  const errorResponseOnError = (request: EndpointRequest) => {
    if (request.response !== undefined) return;
    request.response = toErrorResult(request.error, requestIdOf(request));
  };
  return { onError: errorResponseOnError };
}
