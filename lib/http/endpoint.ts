import middy from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import type { AuthRule } from '#lib/auth/permissions.ts';
import { assertAllowed } from '#lib/auth/permissions.ts';
import { anonymous, type Principal, resolvePrincipal } from '#lib/auth/principal.ts';
import { type Db, getDb } from '#lib/db/index.ts';
import { HttpError, payloadTooLarge } from '#lib/errors.ts';
import { log } from '#lib/log.ts';
import { corsHeaders } from './cors.ts';
import { parseFormBody } from './formBody.ts';
import { toProxyResult } from './response.ts';
import { compileSchemas, describeError } from './validation.ts';

type Infer<S> = S extends JSONSchema ? FromSchema<S> : Record<string, any>;

export interface EndpointOptions<Q, B, P> {
  auth: AuthRule;
  schema?: { query?: Q; body?: B; path?: P };
  /**
   * `json` (default): the body is parsed JSON; `raw`: the handler gets the body text untouched;
   * `json-or-form`: JSON, or a jQuery-style urlencoded form (./formBody.ts).
   */
  body?: 'json' | 'raw' | 'json-or-form';
  /** Largest accepted body in bytes (`MAX_BODY_BYTES`, default 6 MB: Lambda's synchronous limit). */
  maxBodyBytes?: number;
}

export interface Input<Q, B, P> {
  query: Q;
  body: B;
  path: P;
  /** The raw body text when `body: 'raw'`. */
  rawBody: string | null;
  principal: Principal;
  headers: Record<string, string | undefined>;
  db: Db;
  event: APIGatewayProxyEvent;
  requestId: string;
}

const parser = httpJsonBodyParser({ disableContentTypeCheck: true } as Parameters<
  typeof httpJsonBodyParser
>[0]);

export function maxBodyBytes(): number {
  const v = Number(process.env.MAX_BODY_BYTES);
  return Number.isFinite(v) && v > 0 ? v : 6 * 1024 * 1024;
}

/**
 * Builds a Lambda handler for one HTTP endpoint: CORS, structured logs with the request id, body size
 * limit, JSON body parsing (malformed → 400), schema validation of path/query/body (→ 400 naming the
 * field), authentication and the endpoint's `auth` rule, and one error shape `{status:'failure', message}`.
 *
 * @example export const handler = endpoint({ auth: 'admin', schema: { body } }, async ({ body, db }) => ...)
 */
export function endpoint<
  const Q extends JSONSchema | undefined = undefined,
  const B extends JSONSchema | undefined = undefined,
  const P extends JSONSchema | undefined = undefined,
>(options: EndpointOptions<Q, B, P>, fn: (input: Input<Infer<Q>, Infer<B>, Infer<P>>) => Promise<unknown>) {
  const compiled = compileSchemas((options.schema ?? {}) as Record<string, object>);
  const limit = options.maxBodyBytes ?? maxBodyBytes();

  const base = async (event: APIGatewayProxyEvent, context: Context): Promise<APIGatewayProxyResult> => {
    const db = getDb();
    const requestId = context?.awsRequestId ?? event.requestContext?.requestId ?? 'local';
    const headers = (event.headers ?? {}) as Record<string, string | undefined>;
    const principal = await resolvePrincipal(db.sql, headers);
    assertAllowed(options.auth, principal);
    if (options.body !== 'raw' && !(options.body === 'json-or-form' && parseFormBody(event))) {
      await parseJsonBody(event);
    }
    const parts = {
      query: { ...(event.queryStringParameters ?? {}) } as Record<string, unknown>,
      path: { ...(event.pathParameters ?? {}) } as Record<string, unknown>,
      body: (event.body ?? undefined) as unknown,
    };
    for (const part of ['path', 'query', 'body'] as const) {
      const validate = compiled[part];
      if (!validate) continue;
      if (part === 'body' && options.body === 'raw') continue;
      if (part === 'body' && parts.body === undefined) {
        throw new HttpError(400, 'A JSON request body is required.');
      }
      if (!validate(parts[part])) throw new HttpError(400, describeError(part, validate.errors![0]));
    }
    const result = await fn({
      query: parts.query as any,
      path: parts.path as any,
      body: (options.body === 'raw' ? undefined : parts.body) as any,
      rawBody: options.body === 'raw' ? decodeBody(event) : null,
      principal,
      headers,
      db,
      event,
      requestId,
    });
    return toProxyResult(result);
  };

  return middy<APIGatewayProxyEvent, APIGatewayProxyResult>(base as any)
    .use({
      // Outermost: logs, CORS and the one error shape.
      before: (request) => {
        (request.internal as Record<string, unknown>).started = Date.now();
      },
      after: (request) => finish(request, null),
      onError: (request) => {
        request.response = errorResponse(request.error, request.context?.awsRequestId);
        finish(request, request.error);
      },
    })
    .use({
      before: async (request) => {
        const { event } = request;
        const body = event.body;
        if (
          typeof body === 'string' &&
          Buffer.byteLength(body) > (event.isBase64Encoded ? (limit * 4) / 3 : limit)
        ) {
          throw payloadTooLarge(
            `The request body is larger than ${limit} bytes (the API Gateway/Lambda limit). ` +
              'Upload large GeoJSON through POST /api/geodatasets/upload (a presigned S3 URL) instead.',
          );
        }
      },
    });
}

async function parseJsonBody(event: APIGatewayProxyEvent) {
  if (typeof event.body === 'string' && event.body.trim() !== '') {
    try {
      await parser.before!({ event } as any);
    } catch (e) {
      throw new HttpError(
        400,
        `The request body is not valid JSON: ${(e as any)?.cause?.message ?? 'parse error'}.`,
      );
    }
  } else {
    event.body = undefined as unknown as string;
  }
}

function decodeBody(event: APIGatewayProxyEvent): string {
  if (event.body == null) return '';
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
}

function errorResponse(error: unknown, requestId?: string): APIGatewayProxyResult {
  if (error instanceof HttpError) {
    return toProxyResult({
      __response: true,
      statusCode: error.statusCode,
      body: { status: 'failure', message: error.message, ...error.extra },
    });
  }
  // postgres.js: statement timeout / cancel.
  if ((error as { code?: string })?.code === '57014') {
    return toProxyResult({
      __response: true,
      statusCode: 503,
      body: { status: 'failure', message: 'The database took too long to answer; try a narrower request.' },
    });
  }
  log('error', 'unhandled error', {
    requestId,
    error: error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : error,
  });
  return toProxyResult({
    __response: true,
    statusCode: 500,
    body: { status: 'failure', message: `Internal error (request ${requestId ?? 'unknown'}).` },
  });
}

function finish(request: middy.Request<APIGatewayProxyEvent, APIGatewayProxyResult>, error: unknown) {
  const res = request.response;
  if (res) res.headers = { ...corsHeaders(request.event?.headers ?? {}), ...(res.headers ?? {}) };
  const started = (request.internal as Record<string, number>).started ?? Date.now();
  log(error && !(error instanceof HttpError) ? 'error' : 'info', 'request', {
    requestId: request.context?.awsRequestId,
    method: request.event?.httpMethod,
    path: request.event?.path,
    status: res?.statusCode,
    ms: Date.now() - started,
  });
}

export { anonymous };
