import { requireDataset } from '#lib/geodatasets/catalog.ts';
import { readSearch } from '#lib/geodatasets/read/search.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { streamedJson } from '#lib/http/largeResponse.ts';
import { searchAnswer, streamedAnswer } from '#lib/http/openapi/shapes/geodatasets.ts';

const body = {
  type: 'object',
  properties: {
    layer: { type: 'string' },
    key: { type: 'string' },
    value: { type: ['string', 'number', 'boolean'] },
    operator: { type: 'string' },
    type: { type: 'string' },
    last: { type: ['boolean', 'string'] },
    id: { type: ['integer', 'string'] },
    offset: { type: ['integer', 'string'] },
    orderBy: { type: 'string' },
  },
  required: ['layer'],
} as const;

/**
 * POST /api/geodatasets/search: features whose property `key` (a dot path) matches `value`, or the
 * MMGIS client's navigation forms (`last`, `id` + `offset` + `orderBy`); docs/geodatasets-read.md.
 */
export const handler = endpoint(
  {
    auth: 'viewer',
    schema: { body },
    responses: streamedAnswer('The matching features, ordered by id.', searchAnswer),
  },
  async ({ body, db }) => {
    const ds = await requireDataset(db.sql, body.layer);
    return streamedJson(readSearch(db.sql, ds, body));
  },
);
