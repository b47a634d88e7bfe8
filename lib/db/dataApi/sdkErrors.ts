/**
 * How an AWS SDK call's failure is classed for its retry (lib/db/dataApi/retries.ts), read from the fields
 * every SDK error carries: `name`, `$metadata.httpStatusCode`, `$retryable`, `code` of a Node network
 * error, and `cause`. The SDK keeps its own classifiers in `@smithy/core/retry`, a package its README calls
 * internal; these are the same rules (the error names and codes of smithy's service-error-classification),
 * written here so that no internal import is needed.
 */

/** An SDK error's fields read here. */
export interface SdkError {
  name?: string;
  message?: string;
  code?: string;
  cause?: unknown;
  $metadata?: { httpStatusCode?: number; clockSkewCorrected?: boolean };
  $retryable?: { throttling?: boolean };
}

const THROTTLING_NAMES = new Set([
  'BandwidthLimitExceeded',
  'EC2ThrottledException',
  'LimitExceededException',
  'PriorRequestNotComplete',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'RequestThrottled',
  'RequestThrottledException',
  'SlowDown',
  'ThrottledException',
  'Throttling',
  'ThrottlingException',
  'TooManyRequestsException',
  'TransactionInProgressException',
]);
const TRANSIENT_NAMES = new Set(['TimeoutError', 'RequestTimeout', 'RequestTimeoutException']);
const TRANSIENT_STATUS = new Set([500, 502, 503, 504]);
/** Node's codes of a connection that timed out, was reset or refused, or of a network not reached. */
const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/** What a browser's fetch says of a network failure (a TypeError). */
const BROWSER_NETWORK_MESSAGES = new Set([
  'Failed to fetch',
  'NetworkError when attempting to fetch resource',
  'The Internet connection appears to be offline',
  'Load failed',
  'Network request failed',
]);

/** Refused for the rate: HTTP 429, a throttling error's name, or the service's `$retryable.throttling`. */
export function isThrottlingError(e: SdkError): boolean {
  return (
    e.$metadata?.httpStatusCode === 429 ||
    THROTTLING_NAMES.has(e.name ?? '') ||
    e.$retryable?.throttling === true
  );
}

/** A failure that another attempt may not meet: a timeout, a network error, a 500/502/503/504, a retryable trait. */
export function isTransientError(e: SdkError, depth = 0): boolean {
  if (e?.name === 'AbortError') return false;
  return (
    e?.$retryable !== undefined ||
    !!e.$metadata?.clockSkewCorrected ||
    (e.name === 'InvalidSignatureException' && !!e.message?.includes('Signature expired')) ||
    TRANSIENT_NAMES.has(e.name ?? '') ||
    NETWORK_CODES.has(e?.code ?? '') ||
    TRANSIENT_STATUS.has(e.$metadata?.httpStatusCode ?? 0) ||
    (e instanceof TypeError && BROWSER_NETWORK_MESSAGES.has(e.message)) ||
    (e.code === 'ERR_HTTP2_STREAM_ERROR' && !!e.message?.includes('NGHTTP2_REFUSED_STREAM')) ||
    (e.cause !== undefined && depth <= 10 && isTransientError(e.cause as SdkError, depth + 1))
  );
}

/** The service failed (5xx) in a way not already classed transient. */
export function isServerError(e: SdkError): boolean {
  const status = e.$metadata?.httpStatusCode;
  return status !== undefined && status >= 500 && status <= 599 && !isTransientError(e);
}
