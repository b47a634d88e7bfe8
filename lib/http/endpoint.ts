import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import type { AuthRule } from '#lib/auth/permissions.ts';
import type { Principal } from '#lib/auth/principal.ts';
import { withConnectionRetry } from '#lib/db/connectionErrors.ts';
import type { Db } from '#lib/db/index.ts';
import { FunctionTimedOut } from '#lib/errors.ts';
import { withLogContext } from '#lib/log.ts';
import { authentication } from './middleware/authentication.ts';
import { bodyLimit, maxBodyBytes } from './middleware/bodyLimit.ts';
import { type BodyKind, bodyParser } from './middleware/bodyParser.ts';
import { clientFailures } from './middleware/clientFailures.ts';
import { conditionalRequest } from './middleware/conditionalRequest.ts';
import { cors } from './middleware/cors.ts';
import { database } from './middleware/database.ts';
import { errorResponse } from './middleware/errorResponse.ts';
import { proxyResult } from './middleware/proxyResult.ts';
import { requestLog } from './middleware/requestLog.ts';
import type { EndpointContext, EndpointMiddleware } from './middleware/types.ts';
import { validator } from './middleware/validator.ts';
import type { RawBodyDoc, ResponseSchemas } from './openapi/describe.ts';

type Infer<S> = S extends JSONSchema ? FromSchema<S> : Record<string, any>;

export interface EndpointOptions<Q, B, P> {
  auth: AuthRule;
  schema?: { query?: Q; body?: B; path?: P };
  /**
   * `json` (default; `json-or-form` is the same): a JSON body, or a jQuery-style urlencoded form
   * (lib/http/formBody.ts) coerced by the body schema; other content types 415. `raw`: the handler gets
   * the body text untouched.
   */
  body?: BodyKind;
  /** With `body: 'raw'`: the body as the OpenAPI document declares it (its media types and schemas). */
  rawBodyDoc?: RawBodyDoc;
  /** `logged_in`: an invalid or expired Bearer token counts as none instead of a 401. */
  ignoreBadToken?: boolean;
  /** Largest accepted body in bytes (`MAX_BODY_BYTES`, default 6 MB: Lambda's synchronous limit). */
  maxBodyBytes?: number;
  /** Response shapes by status for the OpenAPI document (a generic one is used where absent). */
  responses?: ResponseSchemas;
  /** One line for the OpenAPI document. */
  summary?: string;
  /**
   * `real-status`: a file route (`/Missions/…`) keeps its 4xx status for the MMGIS web client too. The
   * client's 200-failure convention (docs/contract.md, section 1) is for its `calls.api`; a file it fetches
   * (a legend, a tile) it reads as the file, so a failure body under 200 would be read as one.
   */
  failures?: 'mmgis-client' | 'real-status';
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

/** What `endpoint()` returns: a Lambda handler that also carries its options (read by the OpenAPI generator). */
export type EndpointHandler = ((
  event: APIGatewayProxyEvent,
  context: Context,
) => Promise<APIGatewayProxyResult>) & {
  endpoint: EndpointOptions<unknown, unknown, unknown>;
};

/**
 * The middleware list of every endpoint, outermost first (middy runs `before` top-down, `after` and
 * `onError` bottom-up, so the error shape is built before CORS headers are added to it): log with
 * request id, CORS, the MMGIS client's 200 failures, error shape, 304, proxy result; then body limit,
 * header names, database, caller, body, validation.
 */
export function endpointMiddlewares(
  options: EndpointOptions<unknown, unknown, unknown>,
): EndpointMiddleware[] {
  return [
    requestLog(),
    cors(),
    clientFailures({ realStatus: options.failures === 'real-status' }),
    errorResponse(),
    conditionalRequest(),
    proxyResult(),
    bodyLimit({ limit: options.maxBodyBytes ?? maxBodyBytes() }),
    httpHeaderNormalizer() as EndpointMiddleware,
    database(),
    authentication({ rule: options.auth, ignoreBadToken: options.ignoreBadToken }),
    bodyParser({ kind: options.body }),
    validator({ schemas: (options.schema ?? {}) as Record<string, object> }),
  ];
}

/**
 * Builds a Lambda handler for one HTTP endpoint from its `auth` rule and input schemas; the function gets
 * the validated input and returns a value (200 JSON) or a `respond(...)`/`rawJson(...)`/`binary(...)`.
 *
 * @example export const handler = endpoint({ auth: 'admin', schema: { body } }, async ({ body, db }) => ...)
 */
export function endpoint<
  const Q extends JSONSchema | undefined = undefined,
  const B extends JSONSchema | undefined = undefined,
  const P extends JSONSchema | undefined = undefined,
>(
  options: EndpointOptions<Q, B, P>,
  fn: (input: Input<Infer<Q>, Infer<B>, Infer<P>>) => Promise<unknown>,
): EndpointHandler {
  // Run once more after a connection failure only if no statement reached the database (lib/db/connectionErrors.ts).
  const run = (event: APIGatewayProxyEvent, context: EndpointContext) =>
    withConnectionRetry(call(event, context));
  const call = (event: APIGatewayProxyEvent, context: EndpointContext) => () =>
    fn({
      ...(context.parts as Pick<Input<Infer<Q>, Infer<B>, Infer<P>>, 'query' | 'path' | 'body' | 'rawBody'>),
      principal: context.principal,
      headers: (event.headers ?? {}) as Record<string, string | undefined>,
      db: context.db,
      event,
      requestId: context.awsRequestId ?? event.requestContext?.requestId ?? 'local',
    });
  const generic = options as EndpointOptions<unknown, unknown, unknown>;
  // Just before the Lambda's timeout middy gives up on the handler: our 503, not its TimeoutError (a 500).
  const handler = middy<APIGatewayProxyEvent, unknown, Error, EndpointContext>(run, {
    timeoutEarlyResponse: () => {
      throw new FunctionTimedOut();
    },
  }).use(endpointMiddlewares(generic));
  // Each request its own log context (one process may serve several requests at once under `npm start`).
  const withContext = (event: APIGatewayProxyEvent, context: Context) =>
    withLogContext(() => handler(event, context as EndpointContext) as Promise<APIGatewayProxyResult>);
  return Object.assign(withContext as unknown as EndpointHandler, { endpoint: generic });
}
