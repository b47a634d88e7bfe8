import { badRequest } from '#lib/errors.ts';
import { compileSchemas, describeError, type InputSchemas } from '../validation.ts';
import type { EndpointMiddleware, EndpointRequest } from './types.ts';

/**
 * Validates path, query and body against the endpoint's JSON Schemas (compiled once, at cold start; query,
 * path and form strings are coerced to the declared types, so a form gives the same input as JSON;
 * defaults filled in) and puts the results on `context.parts`. The first
 * error is a 400 naming the field. A raw-body endpoint's body is not validated.
 */
export function validator({ schemas = {} }: { schemas?: InputSchemas } = {}): EndpointMiddleware {
  const compiled = compileSchemas(schemas);
  const validatorBefore = (request: EndpointRequest) => {
    const { event, context } = request;
    const raw = context.rawBody ?? null;
    const parts = {
      query: { ...(event.queryStringParameters ?? {}) } as Record<string, unknown>,
      path: { ...(event.pathParameters ?? {}) } as Record<string, unknown>,
      body: raw === null ? ((event.body ?? undefined) as unknown) : undefined,
    };
    const form = context.bodyEncoding === 'form';
    for (const part of ['path', 'query', 'body'] as const) {
      const validate = part === 'body' && form ? compiled.formBody?.() : compiled[part];
      if (!validate || (part === 'body' && raw !== null)) continue;
      if (part === 'body' && parts.body === undefined) throw badRequest('A JSON request body is required.');
      if (!validate(parts[part])) throw badRequest(describeError(part, validate.errors![0]));
    }
    context.parts = { ...parts, rawBody: raw };
  };
  return { before: validatorBefore };
}
