import { listEntries } from '#lib/geodatasets/entries.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { successWith } from '#lib/http/openapi/describe.ts';

const entry = {
  type: 'object',
  required: ['name', 'updated', 'properties_type', 'num_features', 'occurrences'],
  properties: {
    name: { type: 'string' },
    updated: { type: 'string' },
    properties_type: { enum: ['json', 'jsonb'] },
    num_features: { type: 'integer' },
    field_stats: { type: 'object' },
    occurrences: { type: 'object' },
  },
} as const;
const entries = successWith(
  {
    body: { type: 'object', required: ['entries'], properties: { entries: { type: 'array', items: entry } } },
  },
  ['body'],
);

/** POST (and GET) /api/geodatasets/entries: every geodataset; no token needed. */
export const handler = endpoint(
  { auth: 'public', body: 'raw', responses: { 200: { schema: entries } } },
  async ({ db }) => ({
    status: 'success',
    body: { entries: await listEntries(db.sql) },
  }),
);
