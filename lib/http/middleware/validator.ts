import { badRequest } from '#lib/errors.ts';
import { guardInput } from '../inputGuards.ts';
import {
  compileSchemas,
  declaredNames,
  describeError,
  type InputSchemas,
  isArraySchema,
} from '../validation.ts';
import type { EndpointMiddleware, EndpointRequest } from './types.ts';

/**
 * Undeclared query parameters and top-level body fields are dropped before the handler (docs/input.md):
 * every endpoint declares all it reads. A declaration with no `properties` (free-form) keeps every field.
 */
export const DROP_UNDECLARED = true;

const where = { query: 'query parameter', path: 'URL segment', body: 'body field' } as const;

/**
 * The query as the endpoint declared it: only the declared parameters (undeclared ones, such as jQuery's
 * `_=` cache-buster, are dropped: docs/input.md), a parameter declared as an array taking every value of a
 * repeated key (`ids=1&ids=2`, jQuery's `_source[]=a&_source[]=b`).
 */
function declaredQuery(
  event: EndpointRequest['event'],
  schema: object | undefined,
  drop: boolean,
): { all: Record<string, unknown>; declared: Record<string, unknown> } {
  const all: Record<string, unknown> = { ...(event.queryStringParameters ?? {}) };
  const multi = event.multiValueQueryStringParameters ?? {};
  // No query schema at all: the endpoint's parameters are not declared yet; it gets them all (docs/input.md).
  const names = schema ? declaredNames(schema) : null;
  const declared: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(all)) {
    if (drop && names && !names.has(key)) continue;
    const many = multi[key];
    declared[key] = many && many.length > 1 && isArraySchema(schema, key) ? [...many] : value;
  }
  // Every value of a repeated key is guarded too (the single-value map holds only the last).
  for (const [key, values] of Object.entries(multi)) if (values && values.length > 1) all[key] = values;
  return { all, declared };
}

/**
 * Guards every input (lib/http/inputGuards.ts: no NUL, bounded nesting, no prototype keys), then validates
 * path, query and body against the endpoint's JSON Schemas (compiled once, at cold start; query, path and
 * form strings are coerced to the declared types, so a form gives the same input as JSON; defaults filled
 * in) and puts the results on `context.parts`: only declared query parameters and top-level body fields
 * reach the handler (docs/input.md). The first error is a 400 naming the field and the rule. A raw-body
 * endpoint's body is neither guarded nor validated here: its handler parses it (and may call `guardInput`).
 */
export function validator({
  schemas = {},
  dropUndeclared = DROP_UNDECLARED,
}: {
  schemas?: InputSchemas;
  dropUndeclared?: boolean;
} = {}): EndpointMiddleware {
  const compiled = compileSchemas(schemas);
  const bodyNames = dropUndeclared && schemas.body ? declaredNames(schemas.body) : null;
  const validatorBefore = (request: EndpointRequest) => {
    const { event, context } = request;
    const raw = context.rawBody ?? null;
    const query = declaredQuery(event, schemas.query, dropUndeclared);
    const parts = {
      query: query.declared,
      path: { ...(event.pathParameters ?? {}) } as Record<string, unknown>,
      body: raw === null ? ((event.body ?? undefined) as unknown) : undefined,
    };
    guardInput(query.all, where.query);
    guardInput(parts.path, where.path);
    if (parts.body !== undefined) guardInput(parts.body, where.body);
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
    if (bodyNames && parts.body && typeof parts.body === 'object' && !Array.isArray(parts.body)) {
      parts.body = Object.fromEntries(
        Object.entries(parts.body as Record<string, unknown>).filter(([k]) => bodyNames.has(k)),
      );
    }
    context.parts = { ...parts, rawBody: raw };
  };
  return { before: validatorBefore };
}
