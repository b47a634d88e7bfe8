import { routes } from 'api-routes:all';
import { endpoint } from '#lib/http/endpoint.ts';
import { openApiDocument } from '#lib/http/openapi/document.ts';
import { openApi30 } from '#lib/http/openapi/openapi30.ts';
import { rawJson } from '#lib/http/response.ts';
import { htmlHeaders, jsonHeaders } from '#lib/ogc/answers.ts';
import { OGC_PREFIX, ogcApiDocument } from '#lib/ogc/apiDocument.ts';
import { listCollections } from '#lib/ogc/collections.ts';
import { apiHtml } from '#lib/ogc/pages.ts';
import { baseUrl, chooseFormat, OPENAPI_30 } from '#lib/ogc/request.ts';
import { apiAnswer, formatQuery } from '#lib/ogc/schemas.ts';

let generated: Record<string, any> | undefined;

/**
 * GET /api/ogc/api: the OpenAPI 3.0 definition of the OGC API: the routes under /api/ogc rendered by the
 * generator of /api/openapi.json from the same endpoint declarations, as 3.0
 * (lib/http/openapi/openapi30.ts), with each collection's queryables (lib/ogc/apiDocument.ts).
 */
export const handler = endpoint(
  { auth: 'viewer', schema: { query: formatQuery }, responses: apiAnswer, summary: 'The API definition.' },
  async ({ query, headers, event, db }) => {
    const base = baseUrl(event);
    generated ??= openApi30(
      openApiDocument(
        routes.filter((r) => r.path === OGC_PREFIX || r.path.startsWith(`${OGC_PREFIX}/`)),
        { title: 'MMGIS geodatasets – OGC API – Features', version: '1' },
      ) as Record<string, any>,
    );
    const doc = ogcApiDocument(generated, base, await listCollections(db.sql));
    if (chooseFormat(query.f, headers) === 'html')
      return rawJson(200, apiHtml(base, doc as never), htmlHeaders());
    return rawJson(200, JSON.stringify(doc), jsonHeaders(OPENAPI_30));
  },
);
