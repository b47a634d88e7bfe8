import type { EndpointOptions } from '../endpoint.ts';
import { failure, failures } from './describe.ts';

/** One `http` event of serverless.yml with the module of its handler (see scripts/apiRoutes.mjs). */
export interface ApiRoute {
  functionName: string;
  /** Lower-case; `any` for every method. */
  method: string;
  /** API Gateway form, e.g. `/api/geodatasets/get/{layer}` or `/api/{proxy+}`. */
  path: string;
  module: { handler?: unknown };
}

type Options = EndpointOptions<unknown, unknown, unknown>;
type Schema = { properties?: Record<string, object>; required?: string[] };

const ANY = ['get', 'post', 'put', 'patch', 'delete'];

/** The options `endpoint()` attached to a handler, if it was built by `endpoint()`. */
export function endpointOptionsOf(module: ApiRoute['module']): Options | undefined {
  const h = module?.handler as { endpoint?: Options } | undefined;
  return h?.endpoint;
}

/** `/api/{proxy+}` → `/api/{proxy}` (OpenAPI has no greedy parameter). */
export function openApiPath(path: string): string {
  return path.replace(/\{(\w+)\+\}/g, '{$1}');
}

type Branches = Schema & {
  allOf?: Schema[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  then?: Schema;
  else?: Schema;
};

/**
 * Every property an object schema declares at its top level, with its schema, from `properties` and from
 * its `allOf`/`anyOf`/`oneOf`/`then`/`else` branches (first declaration wins); `required` only when the
 * schema itself (or an `allOf` part) requires it.
 */
export function declaredProperties(
  schema: object | undefined,
): Map<string, { schema: object; required: boolean }> {
  const out = new Map<string, { schema: object; required: boolean }>();
  const visit = (s: Branches | undefined, mandatory: boolean) => {
    if (!s || typeof s !== 'object') return;
    for (const [name, p] of Object.entries(s.properties ?? {})) {
      const had = out.get(name);
      const required = mandatory && (s.required?.includes(name) ?? false);
      out.set(name, { schema: had?.schema ?? p, required: (had?.required ?? false) || required });
    }
    for (const part of s.allOf ?? []) visit(part, mandatory);
    for (const part of [...(s.anyOf ?? []), ...(s.oneOf ?? []), s.then, s.else]) visit(part, false);
  };
  visit(schema as Branches | undefined, true);
  return out;
}

function parameters(path: string, options: Options | undefined): object[] {
  const out: object[] = [];
  const pathProps = declaredProperties(options?.schema?.path as object | undefined);
  for (const [, name] of openApiPath(path).matchAll(/\{(\w+)\}/g)) {
    out.push({ name, in: 'path', required: true, schema: pathProps.get(name)?.schema ?? { type: 'string' } });
  }
  for (const [name, p] of declaredProperties(options?.schema?.query as object | undefined)) {
    out.push({ name, in: 'query', required: p.required, schema: p.schema });
  }
  return out;
}

const json = (schema: object, type = 'application/json') => ({ content: { [type]: { schema } } });

function responses(options: Options | undefined): Record<string, object> {
  const out: Record<string, object> = {};
  for (const [status, r] of Object.entries(options?.responses ?? {})) {
    const content = Object.entries(r.content ?? {}).map(([type, schema]) => [type, { schema }]);
    out[status] = {
      description: r.description ?? 'Success.',
      ...(r.schema ? json(r.schema, r.contentType) : {}),
      ...(content.length ? { content: Object.fromEntries(content) } : {}),
    };
  }
  if (!Object.keys(out).some((s) => s.startsWith('2'))) {
    out['200'] = { description: 'Success (JSON).', ...json({}) };
  }
  for (const [status, description] of Object.entries(failures))
    out[status] ??= { description, ...json(failure) };
  return out;
}

function operation(route: ApiRoute, method: string, options: Options | undefined): object {
  const op: Record<string, unknown> = {
    operationId: route.method === 'any' ? `${route.functionName}_${method}` : route.functionName,
    summary: options?.summary,
    tags: [route.path.split('/')[2] ?? 'api'],
    parameters: parameters(route.path, options),
    responses: responses(options),
    'x-auth': options?.auth,
  };
  if (options?.auth && options.auth !== 'public') op.security = [{ bearer: [] }, { session: [] }];
  const body = options?.schema?.body as object | undefined;
  // Every such body is JSON or a form, coerced to the same input (docs/contract.md, section 1).
  if (body && method !== 'get')
    op.requestBody = {
      required: true,
      content: {
        'application/json': { schema: body },
        'application/x-www-form-urlencoded': { schema: body },
      },
    };
  else if (options?.body === 'raw' && method !== 'get' && options.rawBodyDoc)
    op.requestBody = {
      description: options.rawBodyDoc.description,
      required: true,
      content: Object.fromEntries(
        Object.entries(options.rawBodyDoc.content).map(([type, schema]) => [type, { schema }]),
      ),
    };
  else if (options?.body === 'raw' && method !== 'get')
    op.requestBody = { description: 'The body text, read as sent.', required: false, ...json({}) };
  return JSON.parse(JSON.stringify(op));
}

/**
 * The OpenAPI 3.1 document of every route, built from the endpoints' own options: parameters and request
 * bodies from their JSON Schemas, `x-auth` and `security` from their auth rule, responses from their
 * `responses` plus the shared failure shape. Generated at cold start, so it cannot drift from the code.
 */
export function openApiDocument(routes: ApiRoute[], info: { title: string; version: string }): object {
  const paths: Record<string, Record<string, object>> = {};
  for (const route of routes) {
    const options = endpointOptionsOf(route.module);
    const key = openApiPath(route.path);
    paths[key] ??= {};
    const item = paths[key];
    for (const method of route.method === 'any' ? ANY : [route.method]) {
      item[method] ??= operation(route, method, options);
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      description:
        'Every /api/ path also answers under /API/. A request with `X-Requested-With: XMLHttpRequest` (the ' +
        'MMGIS web client) gets a 4xx failure as HTTP 200 with the same `{status:"failure", message}` body ' +
        '(docs/contract.md). Every input (query, path, body) is also refused with a 400 naming the field when ' +
        'it holds a NUL character, nests objects/arrays deeper than 32 levels, or has a `__proto__`, ' +
        '`constructor` or `prototype` key; undeclared query parameters are ignored (docs/input.md).',
      ...info,
    },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    paths,
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'A long-term API token (docs/auth.md).' },
        session: { type: 'apiKey', in: 'cookie', name: 'MMGISSession', description: 'A login session.' },
      },
      schemas: { Failure: failure },
    },
  };
}
