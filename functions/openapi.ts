import { routes } from 'api-routes:all';
import { endpoint } from '#lib/http/endpoint.ts';
import { openApiDocument } from '#lib/http/openapi/document.ts';
import { openApi30 } from '#lib/http/openapi/openapi30.ts';
import { respond } from '#lib/http/response.ts';

const documents: { '3.1'?: object; '3.0'?: object } = {};

const query = {
  type: 'object',
  properties: {
    version: {
      enum: ['3.1', '3.0'],
      default: '3.1',
      description: 'OpenAPI 3.1 (the default), or its 3.0 rendering for clients that read only 3.0.',
    },
  },
} as const;

/**
 * GET /api/openapi.json: the OpenAPI 3.1 document of the whole HTTP interface, built (once per instance)
 * from every route of serverless.yml and the options each handler's `endpoint()` was given;
 * `?version=3.0`: the same document rendered as OpenAPI 3.0 (lib/http/openapi/openapi30.ts).
 */
export const handler = endpoint(
  {
    auth: 'public',
    schema: { query },
    summary: 'The OpenAPI document of this API (3.1, or 3.0 with version=3.0).',
    responses: { 200: { schema: { type: 'object', required: ['openapi', 'paths'] } } },
  },
  async ({ query }) => {
    documents['3.1'] ??= openApiDocument(routes, { title: 'MMGIS serverless API', version: '1' });
    if (query.version === '3.0')
      documents['3.0'] ??= openApi30(documents['3.1'] as Parameters<typeof openApi30>[0]);
    return respond(200, documents[query.version], { headers: { 'Cache-Control': 'no-cache' } });
  },
);
