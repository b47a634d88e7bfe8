import { FUNCTIONS_SCHEMA, functionsDocument } from '#lib/cql2/functions.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { rawJson } from '#lib/http/response.ts';
import { jsonHeaders } from '#lib/ogc/answers.ts';

/** GET /api/ogc/functions: the custom functions a CQL2 filter may call (docs/cql2.md, "Functions"). */
export const handler = endpoint(
  {
    auth: 'public',
    responses: {
      200: {
        description: 'The functions a filter may call (CQL2, /req/functions/get-functions-response-json).',
        content: { 'application/json': FUNCTIONS_SCHEMA },
      },
    },
    summary: 'The CQL2 functions.',
  },
  async () => rawJson(200, JSON.stringify(functionsDocument()), jsonHeaders()),
);
