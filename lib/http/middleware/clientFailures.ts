import { header, withVary } from '../headers.ts';
import { type EndpointMiddleware, type EndpointRequest, proxyResponse } from './types.ts';

/**
 * Whether a request comes from the established MMGIS web client: jQuery marks its same-origin calls with
 * `X-Requested-With: XMLHttpRequest` (docs/contract.md, section 1). Our own pages, scripts, curl and the
 * OpenAPI clients do not send it.
 */
export function isMmgisClient(headers: Record<string, string | undefined> | null | undefined): boolean {
  return (
    header(headers ?? {}, 'x-requested-with')
      ?.trim()
      .toLowerCase() === 'xmlhttprequest'
  );
}

/**
 * The established server's failure convention for the MMGIS web client (docs/contract.md, section 1): its
 * `calls.api` drops the body of any non-2xx answer, so for a request from it (`isMmgisClient`) an expected
 * failure (a 4xx `{status:'failure', message}`: not logged in, wrong credentials, not found, invalid input,
 * forbidden, conflict, too many requests, ...) is answered with HTTP 200 and the same body and headers.
 * Everyone else gets the real status; 5xx stay 5xx for everyone. A 4xx answer carries
 * `Vary: X-Requested-With`, so no cache hands one caller's form of it to the other. With `realStatus` (an
 * endpoint's `failures: 'real-status'`: the file routes) every caller gets the real status.
 */
export function clientFailures({ realStatus = false } = {}): EndpointMiddleware {
  const clientFailuresAfter = (request: EndpointRequest) => {
    const res = proxyResponse(request);
    if (!res || res.statusCode < 400 || res.statusCode >= 500) return;
    if (realStatus) return;
    res.headers = withVary(res.headers ?? {}, 'X-Requested-With');
    if (!isMmgisClient(request.event?.headers) || !isFailureBody(res.body)) return;
    (request.internal as Record<string, unknown>).failureStatus = res.statusCode;
    res.statusCode = 200;
  };
  return { after: clientFailuresAfter, onError: clientFailuresAfter };
}

function isFailureBody(body: string): boolean {
  if (!body.startsWith('{')) return false;
  try {
    return (JSON.parse(body) as { status?: unknown }).status === 'failure';
  } catch {
    return false;
  }
}
