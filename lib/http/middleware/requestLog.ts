import { unavailableAnswer } from '#lib/db/connectionErrors.ts';
import { HttpError } from '#lib/errors.ts';
import { appendLogKeys, clearLogContext, log } from '#lib/log.ts';
import { type EndpointMiddleware, type EndpointRequest, proxyResponse, requestIdOf } from './types.ts';

/**
 * Outermost: puts the request id into the log context for every line logged during the request, and
 * writes one `request` line at the end (method, path, status, milliseconds); `error` level when the
 * request failed with something other than an `HttpError`.
 */
export function requestLog(): EndpointMiddleware {
  const requestLogBefore = (request: EndpointRequest) => {
    (request.internal as Record<string, unknown>).started = Date.now();
    appendLogKeys({ requestId: requestIdOf(request) });
  };
  const requestLogDone = (request: EndpointRequest) => {
    const started =
      ((request.internal as Record<string, unknown>).started as number | undefined) ?? Date.now();
    // A 503 for want of a connection is logged once, as a warning, by errorResponse.
    const failed =
      request.error && !(request.error instanceof HttpError) && !unavailableAnswer(request.error);
    log(failed ? 'error' : 'info', 'request', {
      requestId: requestIdOf(request),
      method: request.event?.httpMethod,
      path: request.event?.path,
      // A failure answered 200 to the MMGIS client (clientFailures.ts) is logged with its real status.
      status:
        ((request.internal as Record<string, unknown>).failureStatus as number | undefined) ??
        proxyResponse(request)?.statusCode,
      ms: Date.now() - started,
    });
    clearLogContext();
  };
  return { before: requestLogBefore, after: requestLogDone, onError: requestLogDone };
}
