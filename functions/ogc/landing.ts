import { endpoint } from '#lib/http/endpoint.ts';
import { rawJson } from '#lib/http/response.ts';
import { htmlHeaders, jsonHeaders } from '#lib/ogc/answers.ts';
import { landingHtml } from '#lib/ogc/pages.ts';
import { baseUrl, chooseFormat, HTML, JSON_TYPE, type Link, OPENAPI_30 } from '#lib/ogc/request.ts';
import { formatQuery, landingAnswer } from '#lib/ogc/schemas.ts';
import { tilesLandingLinks } from '#lib/ogc/tiles/links.ts';

/** GET /api/ogc: the OGC API – Features landing page (docs/ogc.md). */
export const handler = endpoint(
  { auth: 'public', schema: { query: formatQuery }, responses: landingAnswer, summary: 'The landing page.' },
  async ({ query, headers, event }) => {
    const base = baseUrl(event);
    const links: Link[] = [
      { href: base, rel: 'self', type: JSON_TYPE, title: 'This document' },
      { href: `${base}?f=html`, rel: 'alternate', type: HTML, title: 'This document as HTML' },
      {
        href: `${base}/api`,
        rel: 'service-desc',
        type: OPENAPI_30,
        title: 'The API definition (OpenAPI 3.0)',
      },
      { href: `${base}/api?f=html`, rel: 'service-doc', type: HTML, title: 'The API documentation' },
      { href: `${base}/conformance`, rel: 'conformance', type: JSON_TYPE, title: 'Conformance classes' },
      { href: `${base}/collections`, rel: 'data', type: JSON_TYPE, title: 'The collections' },
      {
        href: `${base}/functions`,
        rel: 'http://www.opengis.net/def/rel/ogc/1.0/functions',
        type: JSON_TYPE,
        title: 'The functions a CQL2 filter may call',
      },
      ...tilesLandingLinks(base),
    ];
    if (chooseFormat(query.f, headers) === 'html') return rawJson(200, landingHtml(links), htmlHeaders());
    const doc = {
      title: 'MMGIS geodatasets – OGC API – Features',
      description: 'The geodatasets of this service as OGC API – Features collections.',
      links,
    };
    return rawJson(200, JSON.stringify(doc), jsonHeaders());
  },
);
