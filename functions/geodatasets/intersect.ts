import { streamedJson } from '#lib/answers/largeResponse.ts';
import { requireDataset } from '#lib/geodatasets/catalog.ts';
import { parseReadFilters } from '#lib/geodatasets/read/filters.ts';
import { parseIntersectGeometry, readIntersect } from '#lib/geodatasets/read/intersect.ts';
import { layerParam, readFilterParams } from '#lib/geodatasets/read/readParams.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { intersectAnswer, streamedAnswer } from '#lib/http/openapi/shapes/geodatasets.ts';

const body = {
  type: 'object',
  properties: {
    layer: layerParam,
    /**
     * A GeoJSON geometry (or Feature), or its JSON text (at most the 6 MB body); parseIntersectGeometry
     * checks its shape (lib/geodatasets/read/intersect.ts).
     */
    intersect: { type: ['object', 'string'], maxLength: 6 * 1024 * 1024 },
    ...readFilterParams,
  },
  required: ['layer', 'intersect'],
} as const;

/** POST /api/geodatasets/intersect: features intersecting a GeoJSON geometry, optionally in a time window. */
export const handler = endpoint(
  {
    auth: 'viewer',
    schema: { body },
    responses: streamedAnswer('The intersecting features.', intersectAnswer),
  },
  async ({ body, db }) => {
    const geometry = parseIntersectGeometry(body.intersect);
    const filters = parseReadFilters(body);
    const ds = await requireDataset(db.sql, body.layer);
    return streamedJson(readIntersect(db.sql, ds, filters, geometry));
  },
);
