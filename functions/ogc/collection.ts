import { endpoint } from '#lib/http/endpoint.ts';
import { rawJson } from '#lib/http/response.ts';
import { htmlHeaders, jsonHeaders } from '#lib/ogc/answers.ts';
import { collectionJson, requireCollection } from '#lib/ogc/collections.ts';
import { collectionHtml } from '#lib/ogc/pages.ts';
import { baseUrl, chooseFormat } from '#lib/ogc/request.ts';
import { collectionAnswer, collectionPath, formatQuery } from '#lib/ogc/schemas.ts';

/** GET /api/ogc/collections/{collectionId}: one collection (404 when unknown). */
export const handler = endpoint(
  {
    auth: 'viewer',
    schema: { query: formatQuery, path: collectionPath },
    responses: collectionAnswer,
    summary: 'One collection.',
  },
  async ({ query, path, headers, event, db }) => {
    const base = baseUrl(event);
    const src = await requireCollection(db.sql, path.collectionId);
    if (chooseFormat(query.f, headers) === 'html')
      return rawJson(200, collectionHtml(base, src), htmlHeaders());
    return rawJson(200, JSON.stringify(collectionJson(base, src)), jsonHeaders());
  },
);
