import { streamedJson } from '#lib/answers/largeResponse.ts';
import { collectText } from '#lib/geodatasets/read/featuresText.ts';
import { runRead } from '#lib/geodatasets/read/query.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { rawJson } from '#lib/http/response.ts';
import { htmlHeaders } from '#lib/ogc/answers.ts';
import { requireCollection } from '#lib/ogc/collections.ts';
import { contentCrs } from '#lib/ogc/crs.ts';
import { parseItemsPage, parseItemsQuery } from '#lib/ogc/items.ts';
import { itemsText } from '#lib/ogc/itemsAnswer.ts';
import { HTML_MAX_FEATURES, itemsHtml } from '#lib/ogc/pages.ts';
import { baseUrl, chooseFormat, GEOJSON } from '#lib/ogc/request.ts';
import { collectionPath, itemsAnswer, itemsQuery } from '#lib/ogc/schemas.ts';

/**
 * GET /api/ogc/collections/{collectionId}/items: a page of features as GeoJSON built by the database
 * (docs/ogc.md, "Items"): limit, bbox/bbox-crs, datetime, name=value on the queryables, the CQL2 filter
 * (docs/cql2.md), crs; keyset
 * paging with next/prev links. A page above the inline limit is streamed to S3 and answered 303, as
 * /api/geodatasets/get does.
 */
export const handler = endpoint(
  {
    auth: 'viewer',
    schema: { query: itemsQuery, path: collectionPath },
    responses: itemsAnswer,
    summary: 'The features of a collection, a page at a time.',
  },
  async ({ query, path, headers, event, db }) => {
    const params = query as Record<string, unknown>;
    const format = chooseFormat(query.f, headers);
    const page = parseItemsPage(params);
    // An HTML page lists at most HTML_MAX_FEATURES (docs/ogc.md, "Formats"); its next link goes on from there.
    if (format === 'html') page.limit = Math.min(page.limit, HTML_MAX_FEATURES);
    const src = await requireCollection(db.sql, path.collectionId);
    const base = baseUrl(event);
    const collectionUrl = `${base}/collections/${encodeURIComponent(src.ds.name)}`;
    const keep: Record<string, string> = {};
    for (const [k, v] of Object.entries(params)) {
      if (!['f', 'after', 'before', 'offset', '_'].includes(k) && v !== undefined) keep[k] = String(v);
    }
    const crsHeader = { 'Content-Crs': contentCrs(page.crs) };
    return runRead(db.sql, src.ds, parseItemsQuery(params, src), async (filters) => {
      const pieces = itemsText(db.sql, src.ds, filters, page, { collectionUrl, keep });
      if (format === 'html') {
        const fc = JSON.parse(await collectText(pieces));
        return rawJson(200, itemsHtml(base, src.ds.name, fc), htmlHeaders(crsHeader));
      }
      const answer = await streamedJson(pieces, 'ask for a smaller limit');
      if (answer.statusCode === 200)
        answer.headers = { ...answer.headers, 'Content-Type': `${GEOJSON}; charset=utf-8`, ...crsHeader };
      return answer;
    });
  },
);
