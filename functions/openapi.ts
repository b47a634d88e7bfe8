import { routes } from 'api-routes:all';
import { endpoint } from '#lib/http/endpoint.ts';
import { openApiDocument } from '#lib/http/openapi/document.ts';
import { respond } from '#lib/http/response.ts';

let document: object | undefined;

/**
 * GET /api/openapi.json: the OpenAPI 3.1 document of the whole HTTP interface, built (once per instance)
 * from every route of serverless.yml and the options each handler's `endpoint()` was given.
 */
export const handler = endpoint(
  {
    auth: 'public',
    summary: 'The OpenAPI 3.1 document of this API.',
    responses: { 200: { schema: { type: 'object', required: ['openapi', 'paths'] } } },
  },
  async () => {
    document ??= openApiDocument(routes, { title: 'MMGIS serverless API', version: '1' });
    return respond(200, document, { headers: { 'Cache-Control': 'no-cache' } });
  },
);
