import { queryablesSchema, readQueryables } from '#lib/geodatasets/read/cql2/queryables.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { rawJson } from '#lib/http/response.ts';
import { requireCollection } from '#lib/ogc/collections.ts';
import { collectionPath } from '#lib/ogc/schemas.ts';
import { publicBaseUrl } from '#lib/publicUrl.ts';

/**
 * GET /api/ogc/collections/{collectionId}/queryables: the names a CQL2 `filter` on the geodataset may use, as a
 * JSON Schema (`application/schema+json`, OGC API - Features - Part 3; docs/cql2.md).
 */
export const handler = endpoint(
  {
    auth: 'viewer',
    schema: { path: collectionPath },
    summary: 'The queryables of a geodataset (JSON Schema) for CQL2 filters.',
    responses: {
      200: {
        description: 'A JSON Schema: `$id`, `type: object`, and per queryable its type and `x-ogc-role`.',
        content: {
          'application/schema+json': {
            type: 'object',
            required: ['$id', 'type', 'properties'],
            properties: {
              $id: { type: 'string' },
              type: { const: 'object' },
              properties: { type: 'object', additionalProperties: { type: 'object' } },
            },
          },
        },
      },
    },
  },
  async ({ db, path, event }) => {
    const { ds } = await requireCollection(db.sql, path.collectionId);
    const q = await readQueryables(db.sql, ds);
    const id = `${publicBaseUrl(event)}/api/ogc/collections/${encodeURIComponent(ds.name)}/queryables`;
    return rawJson(200, JSON.stringify(queryablesSchema(ds, q, id)), {
      'Content-Type': 'application/schema+json',
      'Cache-Control': 'no-cache',
    });
  },
);
