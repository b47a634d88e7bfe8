import { requireDataset } from '#lib/geodatasets/catalog.ts';
import { readSearch } from '#lib/geodatasets/read/search.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { rawJson } from '#lib/http/response.ts';

const body = {
  type: 'object',
  properties: {
    layer: { type: 'string' },
    key: { type: 'string' },
    value: { type: ['string', 'number', 'boolean'] },
  },
  required: ['layer', 'key', 'value'],
} as const;

/** POST /api/geodatasets/search: features whose property `key` (a dot path) has the text `value`. */
export const handler = endpoint({ auth: 'viewer', schema: { body } }, async ({ body, db }) => {
  const ds = await requireDataset(db.sql, body.layer);
  return rawJson(200, await readSearch(db.sql, ds, body.key, body.value));
});
