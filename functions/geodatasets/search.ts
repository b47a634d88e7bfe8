import { requireDataset } from '#lib/geodatasets/catalog.ts';
import { readSearch } from '#lib/geodatasets/read/search.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { searchAnswer } from '#lib/http/openapi/shapes/geodatasets.ts';
import { rawJson } from '#lib/http/response.ts';

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
  { auth: 'viewer', schema: { body }, responses: ok(searchAnswer) },
  async ({ body, db }) => {
    const ds = await requireDataset(db.sql, body.layer);
    return rawJson(200, await readSearch(db.sql, ds, body));
  },
);
