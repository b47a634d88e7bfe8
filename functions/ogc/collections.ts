import { endpoint } from '#lib/http/endpoint.ts';
import { rawJson } from '#lib/http/response.ts';
import { htmlHeaders, jsonHeaders } from '#lib/ogc/answers.ts';
import { collectionJson, listCollections } from '#lib/ogc/collections.ts';
import { SUPPORTED_CRS } from '#lib/ogc/crs.ts';
import { collectionsHtml } from '#lib/ogc/pages.ts';
import { baseUrl, chooseFormat, HTML, JSON_TYPE } from '#lib/ogc/request.ts';
import { collectionsAnswer, formatQuery } from '#lib/ogc/schemas.ts';

/**
 * GET /api/ogc/collections: every geodataset the caller may read (the rule of /api/geodatasets/get), with
 * its extent from the catalog (docs/ogc.md).
 */
export const handler = endpoint(
  {
    auth: 'viewer',
    schema: { query: formatQuery },
    responses: collectionsAnswer,
    summary: 'The collections.',
  },
  async ({ query, headers, event, db }) => {
    const base = baseUrl(event);
    const sources = await listCollections(db.sql);
    if (chooseFormat(query.f, headers) === 'html')
      return rawJson(200, collectionsHtml(base, sources), htmlHeaders());
    const doc = {
      links: [
        { href: `${base}/collections`, rel: 'self', type: JSON_TYPE, title: 'This document' },
        { href: `${base}/collections?f=html`, rel: 'alternate', type: HTML, title: 'This document as HTML' },
      ],
      crs: SUPPORTED_CRS.map((c) => c.uri),
      collections: sources.map((s) => collectionJson(base, s)),
    };
    return rawJson(200, JSON.stringify(doc), jsonHeaders());
  },
);
