import { toProxyResult } from '../response.ts';
import type { EndpointMiddleware, EndpointRequest } from './types.ts';

/**
 * Innermost `after`: turns the endpoint's result (a plain value → 200 JSON, or an `HttpResponse` from
 * `respond`/`rawJson`/`binary`) into API Gateway's proxy result, so the middlewares outside it see one shape.
 */
export function proxyResult(): EndpointMiddleware {
  const proxyResultAfter = (request: EndpointRequest) => {
    request.response = toProxyResult(request.response);
  };
  return { after: proxyResultAfter };
}
