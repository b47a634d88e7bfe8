import { endpoint } from '#lib/http/endpoint.ts';
import { rawJson } from '#lib/http/response.ts';
import { htmlHeaders, jsonHeaders } from '#lib/ogc/answers.ts';
import { CONFORMANCE_CLASSES } from '#lib/ogc/conformance.ts';
import { conformanceHtml } from '#lib/ogc/pages.ts';
import { baseUrl, chooseFormat } from '#lib/ogc/request.ts';
import { conformanceAnswer, formatQuery } from '#lib/ogc/schemas.ts';

/** GET /api/ogc/conformance: the conformance classes declared (docs/ogc.md, "Conformance"). */
export const handler = endpoint(
  {
    auth: 'public',
    schema: { query: formatQuery },
    responses: conformanceAnswer,
    summary: 'The conformance classes.',
  },
  async ({ query, headers, event }) => {
    if (chooseFormat(query.f, headers) === 'html')
      return rawJson(200, conformanceHtml(baseUrl(event)), htmlHeaders());
    return rawJson(200, JSON.stringify({ conformsTo: CONFORMANCE_CLASSES }), jsonHeaders());
  },
);
