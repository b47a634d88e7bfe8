/** An error that becomes `{status:'failure', message, ...extra}` with HTTP `statusCode`. */
export class HttpError extends Error {
  constructor(
    public readonly statusCode: number,
    message: string,
    public readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export const badRequest = (message: string, extra?: Record<string, unknown>) =>
  new HttpError(400, message, extra);
export const unauthorized = (
  message = 'Authentication required: log in or send Authorization: Bearer <token>.',
) => new HttpError(401, message);
export const forbidden = (message = 'This action requires an administrator.') => new HttpError(403, message);
export const notFound = (message: string) => new HttpError(404, message);
export const conflict = (message: string) => new HttpError(409, message);
export const payloadTooLarge = (message: string) => new HttpError(413, message);

/**
 * The function's time ran out before its handler finished (middy ends the handler 5 ms before the Lambda's
 * timeout: lib/http/endpoint.ts). Answered 503 with `Retry-After`, never a 500: it says the service was too
 * busy, not that the request was wrong. A write may still complete after it (its transaction runs on).
 */
export class FunctionTimedOut extends Error {
  constructor() {
    super(
      'The request did not finish within the time limit of the function: the service is busy. ' +
        'A write may still complete; check its result before sending it again.',
    );
    this.name = 'FunctionTimedOut';
  }
}
