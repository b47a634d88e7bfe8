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
      query: withDeclaredLists(event, schemas.query),
      path: { ...(event.pathParameters ?? {}) } as Record<string, unknown>,
      body: raw === null ? ((event.body ?? undefined) as unknown) : undefined,
    };
    const form = context.bodyEncoding === 'form';
    for (const part of ['path', 'query', 'body'] as const) {
      const validate = part === 'body' && form ? compiled.formBody?.() : compiled[part];
      if (!validate || (part === 'body' && raw !== null)) continue;
      // A GET (or HEAD) has no body: an endpoint that also takes one (POST) gets none.
      if (part === 'body' && parts.body === undefined && /^(GET|HEAD)$/i.test(event.httpMethod ?? ''))
        continue;
      if (part === 'body' && parts.body === undefined) throw badRequest('A JSON request body is required.');
      if (!validate(parts[part])) throw badRequest(describeError(part, validate.errors![0]));
    }
    context.parts = { ...parts, rawBody: raw };
  };
  return { before: validatorBefore };
}

/**
 * The query parts: each parameter's last value, except a parameter the query schema declares as an
 * array (jQuery's repeated `key[]=a&key[]=b`), which gets every value.
 */
function withDeclaredLists(
  event: EndpointRequest['event'],
  schema: InputSchemas['query'],
): Record<string, unknown> {
  const query: Record<string, unknown> = { ...(event.queryStringParameters ?? {}) };
  const properties = (schema as { properties?: Record<string, { type?: unknown }> } | undefined)?.properties;
  for (const [key, all] of Object.entries(event.multiValueQueryStringParameters ?? {})) {
    if (all && all.length > 1 && properties?.[key]?.type === 'array') query[key] = all;
  }
  return query;
}
