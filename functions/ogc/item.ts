import { notFound } from '#lib/errors.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { rawJson } from '#lib/http/response.ts';
import { htmlHeaders } from '#lib/ogc/answers.ts';
import { requireCollection } from '#lib/ogc/collections.ts';
import { contentCrs, parseCrs } from '#lib/ogc/crs.ts';
import { readFeature } from '#lib/ogc/items.ts';
import { itemHtml } from '#lib/ogc/pages.ts';
import { baseUrl, chooseFormat, GEOJSON, HTML, JSON_TYPE } from '#lib/ogc/request.ts';
import { featurePath, itemAnswer, itemQuery } from '#lib/ogc/schemas.ts';

/** GET /api/ogc/collections/{collectionId}/items/{featureId}: one feature (404 when unknown). */
export const handler = endpoint(
  {
    auth: 'viewer',
    schema: { query: itemQuery, path: featurePath },
    responses: itemAnswer,
    summary: 'One feature.',
  },
  async ({ query, path, headers, event, db }) => {
    const format = chooseFormat(query.f, headers);
    const crs = parseCrs(query.crs, 'crs');
    const id = /^[0-9]{1,16}$/.test(path.featureId) ? Number(path.featureId) : Number.NaN;
    const src = await requireCollection(db.sql, path.collectionId);
    const text = Number.isSafeInteger(id) ? await readFeature(db.sql, src.ds, id, crs) : undefined;
    if (text === undefined) throw notFound(`Feature '${path.featureId}' not found in '${src.ds.name}'.`);
    const base = baseUrl(event);
    const collectionUrl = `${base}/collections/${encodeURIComponent(src.ds.name)}`;
    const url = `${collectionUrl}/items/${id}`;
    const feature = JSON.parse(text);
    const crsHeader = { 'Content-Crs': contentCrs(crs) };
    if (format === 'html') return rawJson(200, itemHtml(base, src.ds.name, feature), htmlHeaders(crsHeader));
    feature.links = [
      { href: url, rel: 'self', type: GEOJSON, title: 'This feature' },
      { href: `${url}?f=html`, rel: 'alternate', type: HTML, title: 'This feature as HTML' },
      { href: collectionUrl, rel: 'collection', type: JSON_TYPE, title: 'The collection' },
    ];
    return rawJson(200, JSON.stringify(feature), {
      'Content-Type': `${GEOJSON}; charset=utf-8`,
      ...crsHeader,
    });
  },
);
